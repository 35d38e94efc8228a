import Foundation
import Testing

@testable import JOSE

/// RFC 9864: the fully-specified `Ed25519` identifier is accepted wherever `EdDSA` with an Ed25519 key is,
/// emitted when the caller asks for it, and a key restricted to `Ed25519` verifies nothing else.
@Suite("RFC 9864: fully-specified Ed25519")
struct FullySpecifiedEd25519Tests {
    static let vectors = Fixtures.directory.appendingPathComponent("interop/vectors_2026.json")

    static func key(alg: String?) throws -> JWK {
        var key = try TestKeys.jwk("ed25519.jwk")
        key.algorithm = alg
        return key
    }

    @Test("signing with .ed25519 writes alg \"Ed25519\"; the token verifies with an Ed25519 key whatever its alg says of EdDSA/Ed25519")
    func signAndVerify() throws {
        let token = try JWT.sign(["sub": "alice"], key: Self.key(alg: nil), algorithm: .ed25519)
        let jws = try CompactJWS(token)
        #expect(jws.header.algorithmName == "Ed25519")
        #expect(jws.header.signatureAlgorithm == .ed25519)
        for alg in [nil, "EdDSA", "Ed25519"] {
            try jws.verify(with: Self.key(alg: alg).publicKey)
        }
        // A key restricted to Ed25519 signs EdDSA tokens too: both name the same signature.
        let legacy = try JWT.sign(["sub": "alice"], key: Self.key(alg: "Ed25519"), algorithm: .eddsa)
        #expect(try CompactJWS(legacy).header.algorithmName == "EdDSA")
        try CompactJWS(legacy).verify(with: Self.key(alg: "Ed25519").publicKey)
    }

    @Test("a key whose alg is Ed25519 admits exactly EdDSA and Ed25519")
    func admitted() throws {
        let key = try Self.key(alg: "Ed25519")
        #expect(key.admittedAlgorithms == [.eddsa, .ed25519])
        for algorithm in JWSAlgorithm.allCases {
            #expect(key.admits(algorithm) == (algorithm == .eddsa || algorithm == .ed25519), "\(algorithm)")
        }
        // Ed25519 on another key type admits nothing.
        var ec = try TestKeys.jwk("p256.pub.jwk")
        ec.algorithm = "Ed25519"
        #expect(ec.admittedAlgorithms.isEmpty)
        let esToken = try JWT.sign(["sub": "alice"], key: TestKeys.jwk("p256.jwk"), algorithm: .es256)
        expectCode(.keyAlgorithmMismatch) { try CompactJWS(esToken).verify(with: ec) }
        expectCode(.keyAlgorithmMismatch) { try CompactJWS(esToken).verify(with: Self.key(alg: "Ed25519").publicKey) }
    }

    @Test("an Ed448 token (alg Ed448, or EdDSA over an Ed448 key, made by Python cryptography) never verifies with an Ed25519 key")
    func ed448Refused() throws {
        let root = try Fixtures.object(Self.vectors)
        let tokens = try #require(root.object("ed448")?.object("tokens"))
        let ed448 = try #require(tokens.string("Ed448")), eddsa = try #require(tokens.string("EdDSA"))
        for alg in [nil, "EdDSA", "Ed25519"] {
            let key = try Self.key(alg: alg).publicKey
            expectCode(.unsupportedAlgorithm) { try CompactJWS(ed448).verify(with: key) }
            expectCode(.invalidSignature) { try CompactJWS(eddsa).verify(with: key) }
        }
        // The Ed448 key itself is not one this library uses: a typed refusal, not a crash.
        let jwk = try #require(root.object("ed448")?.object("jwk"))
        expectCode(.unsupportedKey) { _ = try JWK(jsonObject: jwk) }
    }

    @Test("alg names compare exactly: ed25519, ED25519 and Ed25519 with spaces are unsupported")
    func exactCase() throws {
        for name in ["ed25519", "ED25519", " Ed25519", "Ed25519 ", "EDDSA", "eddsa"] {
            expectCode(.unsupportedAlgorithm, "\(name)") { _ = try JWSAlgorithm(headerValue: name) }
        }
        #expect(try JWSAlgorithm(headerValue: "Ed25519") == .ed25519)
    }

    @Test("an allow-list is exact: [EdDSA] refuses an Ed25519 token and [Ed25519] an EdDSA one")
    func allowList() throws {
        let key = try Self.key(alg: nil)
        let fully = try CompactJWS(JWT.sign(["sub": "a"], key: key, algorithm: .ed25519))
        let legacy = try CompactJWS(JWT.sign(["sub": "a"], key: key, algorithm: .eddsa))
        expectCode(.algorithmNotAllowed) { try fully.verify(with: key.publicKey, policy: JWSVerificationPolicy(allowedAlgorithms: [.eddsa])) }
        expectCode(.algorithmNotAllowed) { try legacy.verify(with: key.publicKey, policy: JWSVerificationPolicy(allowedAlgorithms: [.ed25519])) }
        try fully.verify(with: key.publicKey, policy: JWSVerificationPolicy(allowedAlgorithms: [.eddsa, .ed25519]))
    }

    @Test("a key set without kid selects the Ed25519 key for an Ed25519 token")
    func keySetSelection() throws {
        var key = try Self.key(alg: "Ed25519").publicKey
        key.keyID = nil
        let set = JWKSet(keys: [key, try TestKeys.jwk("p256.pub.jwk")])
        #expect(try set.selectKey(keyID: nil, algorithm: .ed25519).keyType == .ed25519)
        var signer = try Self.key(alg: "Ed25519")
        signer.keyID = nil
        let token = try JWT.sign(["sub": "a"], key: signer, algorithm: .ed25519)
        #expect(try CompactJWS(token).verify(with: set).keyType == .ed25519)
    }

    @Test("a generated key given alg Ed25519 signs Ed25519 tokens that verify, and its public JWK keeps the alg")
    func generated() throws {
        var key = try JWK.generate(.ed25519)
        key.algorithm = "Ed25519"
        #expect(key.publicJWK["alg"]?.stringValue == "Ed25519")
        let token = try JWT.sign(["sub": "a"], key: key, algorithm: .ed25519)
        try CompactJWS(token).verify(with: JWK(json: key.publicJWKString))
        expectCode(.keyAlgorithmMismatch) { _ = try JWT.sign(["sub": "a"], key: key, algorithm: .es256) }
    }
}
