import Foundation
import Testing

@testable import JOSE

@Suite("Weak keys")
struct KeyStrengthTests {
    @Test(
        "a 1024-bit RSA key is weak by default and accepted only when minimumRSAKeyBits is lowered",
        .enabled(if: Tool.hasOpenSSL, "needs the openssl command line"))
    func rsa1024() async throws {
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let path = directory.appendingPathComponent("rsa1024.pem").path
        let output = try await Tool.run("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", path])
        try #require(output.status == 0, "openssl: \(output.stderr)")
        let key = try JWK(pem: String(contentsOfFile: path, encoding: .utf8))
        #expect(key.sizeInBits == 1024)
        // Signing applies the same policy.
        expectCode(.weakKey) { _ = try CompactJWS.sign(payload: "x", key: key, algorithm: .rs256) }
        let lenient = JWSVerificationPolicy(minimumRSAKeyBits: 1024)
        let token = try CompactJWS.sign(payload: Array("x".utf8), key: key, algorithm: .rs256, policy: lenient)
        let jws = try CompactJWS(token)
        expectCode(.weakKey) { try jws.verify(with: key.publicKey) }
        try jws.verify(with: key.publicKey, policy: lenient)
    }

    @Test("an HMAC secret shorter than the hash output is weak", arguments: [(JWSAlgorithm.hs256, 31), (.hs384, 47), (.hs512, 63)])
    func shortHMAC(_ algorithm: JWSAlgorithm, _ length: Int) throws {
        let short = JWK(symmetricKey: Array(repeating: 9, count: length))
        let lenient = JWSVerificationPolicy(allowsShortHMACKeys: true)
        let token = try CompactJWS.sign(payload: Array("x".utf8), key: short, algorithm: algorithm, policy: lenient)
        expectCode(.weakKey) { try CompactJWS(token).verify(with: short) }
        try CompactJWS(token).verify(with: short, policy: lenient)
        // Exactly the hash length is enough.
        let exact = JWK(symmetricKey: Array(repeating: 9, count: length + 1))
        try CompactJWS(CompactJWS.sign(payload: "x", key: exact, algorithm: algorithm)).verify(with: exact)
    }

    @Test("an empty HMAC secret is weak even when short keys are allowed")
    func emptyHMAC() throws {
        let empty = JWK(symmetricKey: [])
        let token = Base64URL.encode(#"{"alg":"HS256"}"#) + ".e30." + Base64URL.encode([UInt8](repeating: 0, count: 32))
        expectCode(.weakKey) { try CompactJWS(token).verify(with: empty, policy: JWSVerificationPolicy(allowsShortHMACKeys: true)) }
    }
}
