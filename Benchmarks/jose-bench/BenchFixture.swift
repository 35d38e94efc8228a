import CLibCrypto
import Foundation
import JOSE

/// A signed token plus everything both measured paths need.
struct BenchFixture: @unchecked Sendable {
    let algorithm: JWSAlgorithm
    let token: String
    let key: JWK
    let publicKeyPEM: String
    let secret: [UInt8]
    let signingInput: [UInt8]
    let signature: [UInt8]

    init(algorithm: JWSAlgorithm, keyName: String, keysDirectory: URL, payload: String) throws {
        self.algorithm = algorithm
        func read(_ name: String) throws -> String { try String(contentsOf: keysDirectory.appendingPathComponent(name), encoding: .utf8) }
        if algorithm == .hs256 {
            var secretKey = try JWK(json: read("hmac.jwk"))
            secretKey.algorithm = nil
            key = secretKey
            secret = Array(try Data(contentsOf: keysDirectory.appendingPathComponent("hmac.key")))
            publicKeyPEM = ""
            token = try CompactJWS.sign(payload: Array(payload.utf8), header: ["typ": "JWT"], key: secretKey, algorithm: algorithm)
        } else {
            var privateKey = try JWK(pem: read("\(keyName).pem"))
            privateKey.algorithm = nil
            privateKey.keyID = "bench"
            token = try CompactJWS.sign(payload: Array(payload.utf8), header: ["typ": "JWT"], key: privateKey, algorithm: algorithm)
            publicKeyPEM = try read("\(keyName).pub.pem")
            key = try JWK(pem: publicKeyPEM)
            secret = []
        }
        let parts = token.split(separator: ".")
        signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        signature = try Base64URL.decode(String(parts[2]))
        // Sanity: both paths must accept the token before anything is timed.
        _ = try makeAPILoop()()
        _ = try makeRawLoop()()
    }

    /// The public API: parse + signature + claims decode + time checks.
    func makeAPILoop() -> () throws -> Bool {
        let token = self.token, key = self.key
        let options = JWTValidationPolicy(leeway: 60)
        return {
            let jwt = try JWT.verifyIgnoringIssuerAndAudience(token, key: key, validation: options)
            return try jwt.claims.subject != nil
        }
    }

    /// The raw libcrypto ceiling with per-key state prepared once (per thread).
    func makeRawLoop() throws -> () throws -> Bool {
        switch algorithm.family {
        case .hmac: return try RawHMAC(secret: secret, input: signingInput, tag: signature).loop()
        case .eddsa: return try RawEdDSA(pem: publicKeyPEM, input: signingInput, signature: signature).loop()
        default: return try RawDigestVerify(pem: publicKeyPEM, algorithm: algorithm, input: signingInput, jwsSignature: signature).loop()
        }
    }
}
