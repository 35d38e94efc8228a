import Foundation
import Testing

@testable import JOSE

/// ML-DSA (RFC 9964, `kty: AKP`) through libcrypto's EVP interface, probed once at run time: vectors made by
/// Python `cryptography` 50 and jwcrypto 1.6 (Fixtures/interop/generate_2026.py) verify where libcrypto has
/// ML-DSA (OpenSSL 3.5 and later) and are refused with `algorithm_unavailable` where it has not (OpenSSL 3.0).
@Suite("ML-DSA and AKP keys (RFC 9964)")
struct MLDSATests {
    static let vectors = Fixtures.directory.appendingPathComponent("interop/vectors_2026.json")

    static func entries() throws -> [JSONObject] { try Fixtures.object(vectors).array("mldsa").compactMap(\.objectValue) }

    /// OpenSSL 3.5 and later provide ML-DSA; the version text is `OpenSSL MAJOR.MINOR.PATCH ...`.
    static var runtimeHasMLDSA: Bool {
        let words = MLDSA.runtimeVersion.split(separator: " ")
        guard words.first == "OpenSSL", words.count > 1 else { return false }
        let numbers = words[1].split(separator: ".").compactMap { Int($0) }
        guard numbers.count >= 2 else { return false }
        return numbers[0] > 3 || (numbers[0] == 3 && numbers[1] >= 5)
    }

    @Test("the run-time probe agrees with the libcrypto version, and every ML-DSA algorithm reports it")
    func probe() {
        #expect(MLDSA.isAvailable == Self.runtimeHasMLDSA, "\(MLDSA.runtimeVersion)")
        for algorithm in JWSAlgorithm.allCases {
            #expect(algorithm.isAvailable == (algorithm.family != .mlDSA || Self.runtimeHasMLDSA), "\(algorithm)")
        }
        #expect([JWSAlgorithm.mlDSA44, .mlDSA65, .mlDSA87].map(\.rawValue) == ["ML-DSA-44", "ML-DSA-65", "ML-DSA-87"])
    }

    @Test("the fixture covers the three parameter sets, from the pinned generator")
    func coverage() throws {
        #expect(try Fixtures.object(Self.vectors).string("generator") == "cryptography 50.0.2, jwcrypto 1.6.1, joserfc 1.8.0")
        let entries = try Self.entries()
        #expect(entries.compactMap { $0.string("alg") } == JWK.MLDSAParameterSet.allCases.map(\.rawValue))
        for (entry, set) in zip(entries, JWK.MLDSAParameterSet.allCases) {
            #expect(entry.int("public_length") == set.publicKeyLength)
            #expect(entry.int("signature_length") == set.signatureLength)
        }
    }

    @Test("an AKP key reads on any libcrypto: its type, alg, public JWK and RFC 7638-style thumbprint (alg, kty, pub)", arguments: 0..<3)
    func keyAndThumbprint(_ index: Int) throws {
        let entry = try Self.entries()[index]
        let alg = try #require(entry.string("alg"))
        let set = try #require(JWK.MLDSAParameterSet(rawValue: alg))
        let jwk = try #require(entry.object("jwk"))
        let key = try JWK(jsonObject: jwk)
        #expect(key.keyType == .mlDSA(set))
        #expect(key.keyType.kty == "AKP")
        #expect(key.isPrivate)
        #expect(key.admittedAlgorithms == [set.algorithm])
        #expect(key.thumbprint() == entry.string("thumbprint"))
        let publicKey = key.publicKey
        #expect(!publicKey.isPrivate)
        #expect(publicKey.publicJWK["priv"] == nil)
        #expect(publicKey.publicJWK.string("pub") == jwk.string("pub"))
        #expect(publicKey.publicJWK.string("alg") == set.rawValue)
        let seed = try #require(jwk.string("priv"))
        #expect(!key.description.contains(seed))
        // jwcrypto's own AKP key gives jwcrypto's thumbprint.
        let other = try #require(try Fixtures.object(Self.vectors).object("jwcrypto_mldsa"))
        let otherJWK = try #require(other.object("jwk"))
        #expect(try JWK(jsonObject: otherJWK).thumbprint() == other.string("thumbprint"))
    }

    @Test("cryptography's and jwcrypto's ML-DSA tokens verify when libcrypto has ML-DSA, else algorithm_unavailable", arguments: 0..<3)
    func vectorsVerifyOrRefuse(_ index: Int) throws {
        let entry = try Self.entries()[index]
        let key = try JWK(jsonObject: try #require(entry.object("jwk"))).publicKey
        let jws = try CompactJWS(try #require(entry.string("token")))
        var parts = try #require(entry.string("token")).split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(#"{"sub":"mallory"}"#.utf8))
        let altered = try CompactJWS(parts.joined(separator: "."))
        let jwcrypto = try #require(try Fixtures.object(Self.vectors).object("jwcrypto_mldsa"))
        let jwcryptoKey = try JWK(jsonObject: try #require(jwcrypto.object("jwk")))
        let jwcryptoToken = try CompactJWS(try #require(jwcrypto.string("token")))
        if MLDSA.isAvailable {
            try jws.verify(with: key)
            expectCode(.invalidSignature) { try altered.verify(with: key) }
            if index == 0 { try jwcryptoToken.verify(with: jwcryptoKey) }
        } else {
            expectCode(.algorithmUnavailable) { try jws.verify(with: key) }
            expectCode(.algorithmUnavailable) { try altered.verify(with: key) }
            if index == 0 { expectCode(.algorithmUnavailable) { try jwcryptoToken.verify(with: jwcryptoKey) } }
        }
    }

    @Test("signing, key generation and private export: round trip when available, else algorithm_unavailable", arguments: 0..<3)
    func signAndGenerate(_ index: Int) throws {
        let entry = try Self.entries()[index]
        let set = JWK.MLDSAParameterSet.allCases[index]
        let key = try JWK(jsonObject: try #require(entry.object("jwk")))
        if MLDSA.isAvailable {
            let token = try JWT.sign(["sub": "alice"], key: key, algorithm: set.algorithm)
            #expect(try CompactJWS(token).header.algorithmName == set.rawValue)
            try CompactJWS(token).verify(with: key.publicKey)
            #expect(try key.privateJWK().string("priv") == entry.object("jwk")?.string("priv"))
            let fresh = try JWK.generate(.mlDSA(set))
            #expect(fresh.algorithm == set.rawValue)
            try CompactJWS(JWT.sign(["sub": "a"], key: fresh, algorithm: set.algorithm)).verify(with: JWK(json: fresh.publicJWKString))
        } else {
            expectCode(.algorithmUnavailable) { _ = try JWT.sign(["sub": "alice"], key: key, algorithm: set.algorithm) }
            expectCode(.algorithmUnavailable) { _ = try key.privateJWK() }
            expectCode(.algorithmUnavailable) { _ = try JWK.generate(.mlDSA(set)) }
            expectCode(.algorithmUnavailable) { _ = try key.publicKeyPEM() }
        }
    }

    @Test("refusals that hold on any libcrypto: missing or unknown alg, wrong lengths, cross-algorithm and cross-type use")
    func refusals() throws {
        let entries = try Self.entries()
        let jwk44 = try #require(entries[0].object("jwk"))
        let pub = try #require(jwk44.string("pub"))
        expectCode(.invalidKey) { _ = try JWK(json: #"{"kty":"AKP","pub":"\#(pub)"}"#) }
        expectCode(.invalidKey) { _ = try JWK(json: #"{"kty":"AKP","alg":7,"pub":"\#(pub)"}"#) }
        expectCode(.unsupportedKey) { _ = try JWK(json: #"{"kty":"AKP","alg":"SLH-DSA-SHA2-128s","pub":"\#(pub)"}"#) }
        expectCode(.unsupportedKey) { _ = try JWK(json: #"{"kty":"AKP","alg":"ml-dsa-44","pub":"\#(pub)"}"#) }
        expectCode(.invalidKey) { _ = try JWK(json: #"{"kty":"AKP","alg":"ML-DSA-65","pub":"\#(pub)"}"#) }
        expectCode(.invalidKey) { _ = try JWK(json: #"{"kty":"AKP","alg":"ML-DSA-44","pub":"\#(pub)","priv":"AAAA"}"#) }
        expectCode(.invalidKey) { _ = try JWK(json: #"{"kty":"AKP","alg":"ML-DSA-44"}"#) }
        expectCode(.unsupportedAlgorithm) { _ = try JWSAlgorithm(headerValue: "ML-DSA-44 ") }

        let key44 = try JWK(jsonObject: jwk44).publicKey
        let key65 = try JWK(jsonObject: try #require(entries[1].object("jwk"))).publicKey
        let token65 = try CompactJWS(try #require(entries[1].string("token")))
        // The key decides: an ML-DSA-44 key never verifies an ML-DSA-65 token, an Ed25519 key no ML-DSA token,
        // an AKP key no ES256 token, whatever libcrypto provides.
        expectCode(.keyAlgorithmMismatch) { try token65.verify(with: key44) }
        expectCode(.keyAlgorithmMismatch) { try token65.verify(with: TestKeys.jwk("ed25519.pub.jwk")) }
        let es256 = try CompactJWS(JWT.sign(["sub": "a"], key: TestKeys.jwk("p256.jwk"), algorithm: .es256))
        expectCode(.keyAlgorithmMismatch) { try es256.verify(with: key65) }
        expectCode(.algorithmNotAllowed) { try token65.verify(with: key65, policy: JWSVerificationPolicy(allowedAlgorithms: [.es256])) }
    }

    @Test("a JWK Set with AKP keys reads on any libcrypto; a token naming one verifies, or fails algorithm_unavailable")
    func keySet() throws {
        let entries = try Self.entries()
        var members: [JSONValue] = entries.compactMap { $0.object("jwk") }.map {
            .object(JSONObject($0.filter { $0.name != "priv" }.map { ($0.name, $0.value) }))
        }
        members.append(.object(try JSONParser.parseObject(Array(TestKeys.text("p256.pub.jwk").utf8), what: "key")))
        let set = try JWKSet(json: JSONObject([("keys", JSONValue.array(members))]).jsonString())
        #expect(set.skipped.isEmpty)
        #expect(set.keys.count == 4)
        let jws = try CompactJWS(try #require(entries[2].string("token")))
        if MLDSA.isAvailable {
            #expect(try jws.verify(with: set).keyID == "ml-dsa-87")
        } else {
            expectCode(.algorithmUnavailable) { try jws.verify(with: set) }
        }
        // The EC key beside them still works, selected without kid.
        var signer = try TestKeys.jwk("p256.jwk")
        signer.keyID = nil
        let es256 = try CompactJWS(JWT.sign(["sub": "a"], key: signer, algorithm: .es256))
        #expect(try es256.verify(with: set).keyType == .ec(.p256))
    }
}
