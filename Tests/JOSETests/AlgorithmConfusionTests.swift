import Foundation
import Testing

@testable import JOSE

@Suite("Algorithm confusion and algorithm selection")
struct AlgorithmConfusionTests {
    /// The DER body of a PEM block.
    static func der(ofPEM pem: String) throws -> [UInt8] {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return [UInt8](try #require(Data(base64Encoded: body)))
    }

    @Test("an RS256 token verified with an oct key is a key/algorithm mismatch")
    func rsaTokenWithOctKey() throws {
        var signer = try TestKeys.pem("rsa2048.pem")
        signer.algorithm = nil
        let token = try CompactJWS.sign(payload: "x", key: signer, algorithm: .rs256)
        let oct = JWK(symmetricKey: Array(repeating: 0x42, count: 64))
        expectCode(.keyAlgorithmMismatch) { try CompactJWS(token).verify(with: oct) }
    }

    @Test(
        "HS256 keyed with the RSA public key's PEM or DER bytes never verifies against that RSA key",
        arguments: ["pem", "der"])
    func hmacKeyedWithRSAPublicKey(_ form: String) throws {
        let pem = try TestKeys.text("rsa2048.pub.pem")
        let secret = form == "pem" ? Array(pem.utf8) : try Self.der(ofPEM: pem)
        let forged = try CompactJWS.sign(payload: #"{"sub":"admin"}"#, key: JWK(symmetricKey: secret), algorithm: .hs256)
        let jws = try CompactJWS(forged)
        // The forgery is a genuine HMAC under those bytes...
        try jws.verify(with: JWK(symmetricKey: secret))
        // ...but the RSA key never admits HS256, whatever its alg member says.
        let publicKey = try TestKeys.jwk("rsa2048.pub.jwk")
        expectCode(.keyAlgorithmMismatch) { try jws.verify(with: publicKey) }
        var unrestricted = publicKey
        unrestricted.algorithm = nil
        expectCode(.keyAlgorithmMismatch) { try jws.verify(with: unrestricted) }
        expectCode(.keyAlgorithmMismatch) { try jws.verify(with: TestKeys.pem("rsa2048.pub.pem")) }
        // And through a key set: no RSA key is a candidate for HS256.
        let set = try JWKSet(json: TestKeys.text("jwks.json"))
        expectCode(.keyNotFound) { try jws.verify(with: set) }
    }

    @Test("none is refused in every spelling", arguments: ["none", "None", "NONE", "nOnE"])
    func none(_ spelling: String) throws {
        let header = Base64URL.encode(#"{"alg":"\#(spelling)"}"#)
        let token = "\(header).\(Base64URL.encode(#"{"sub":"a"}"#))."
        let jws = try CompactJWS(token)
        expectCode(.unsupportedAlgorithm) { try jws.verify(with: TestKeys.jwk("hmac.jwk")) }
        expectCode(.unsupportedAlgorithm) { try jws.verify(with: TestKeys.jwk("rsa2048.pub.jwk")) }
        expectCode(.unsupportedAlgorithm) { try jws.verify(with: JWKSet(json: TestKeys.text("jwks.json"))) }
        expectCode(.unsupportedAlgorithm) { _ = try JWSAlgorithm(headerValue: spelling) }
    }

    @Test("a key whose alg is RS256 refuses a PS256 token")
    func keyAlgRestricts() throws {
        var signer = try TestKeys.pem("rsa2048.pem")
        signer.algorithm = nil
        let token = try CompactJWS.sign(payload: "x", key: signer, algorithm: .ps256)
        let restricted = try TestKeys.jwk("rsa2048.pub.jwk")
        #expect(restricted.algorithm == "RS256")
        expectCode(.keyAlgorithmMismatch) { try CompactJWS(token).verify(with: restricted) }
        var open = restricted
        open.algorithm = nil
        try CompactJWS(token).verify(with: open)
    }

    @Test("the caller's allow-list excludes an algorithm the key admits")
    func allowList() throws {
        var key = try TestKeys.pem("rsa2048.pem")
        key.algorithm = nil
        let token = try CompactJWS.sign(payload: "x", key: key, algorithm: .ps256)
        let policy = JWSVerificationPolicy(allowedAlgorithms: [.rs256])
        expectCode(.algorithmNotAllowed) { try CompactJWS(token).verify(with: key.publicKey, policy: policy) }
        try CompactJWS(token).verify(with: key.publicKey, policy: JWSVerificationPolicy(allowedAlgorithms: [.ps256]))
    }

    @Test("an unknown alg is unsupported")
    func unknownAlgorithm() throws {
        let token = Base64URL.encode(#"{"alg":"HS1"}"#) + ".e30.AAAA"
        expectCode(.unsupportedAlgorithm) { try CompactJWS(token).verify(with: TestKeys.jwk("hmac.jwk")) }
    }
}
