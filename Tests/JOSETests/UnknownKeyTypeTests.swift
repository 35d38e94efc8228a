import Foundation
import Testing

@testable import JOSE

/// A JWK Set holding keys of types this library does not know (`kty: AKP` with an algorithm it lacks, an
/// unknown `kty`, an Ed448 `OKP` key) is read without failing; those keys are skipped, and a token naming
/// one by `kid` fails with `unsupported_key_type`, never as a parse error of the whole set.
@Suite("JWK Sets with unknown key types")
struct UnknownKeyTypeTests {
    static let vectors = Fixtures.directory.appendingPathComponent("interop/vectors_2026.json")

    /// The joserfc-made set (AKP ML-DSA-44, an unknown kty, an Ed25519 key) plus unknown AKP and Ed448 keys.
    static func set() throws -> (JWKSet, token: String) {
        let root = try Fixtures.object(vectors)
        let fixture = try #require(root.object("akp_set"))
        var keys = try #require(fixture.object("set")).array("keys")
        keys.append(.object(["kty": "AKP", "alg": "SLH-DSA-SHA2-128s", "pub": "AAAA", "kid": "slh-1"]))
        keys.append(.object(try #require(root.object("ed448")?.object("jwk"))))
        keys.append(.object(["kty": "AKP", "kid": "no-alg", "pub": "AAAA"]))
        let json = JSONObject([("keys", JSONValue.array(keys))]).jsonString()
        return (try JWKSet(json: json), try #require(fixture.string("token")))
    }

    @Test("the set is read; unknown types are skipped with their kid, the Ed25519 key is kept and verifies joserfc's token")
    func readAndSkip() throws {
        let (set, token) = try Self.set()
        #expect(set.keys.map(\.keyID).contains("ed-1"))
        for kid in ["future-1", "slh-1", "ed448-1"] {
            #expect(set.skipped.contains { $0.keyID == kid }, "\(kid) skipped")
            #expect(!set.keys.contains { $0.keyID == kid })
        }
        let key = try CompactJWS(token).verify(with: set)
        #expect(key.keyID == "ed-1")
    }

    @Test("a kid naming a skipped key of an unknown type is unsupported_key_type", arguments: ["future-1", "slh-1", "ed448-1"])
    func namedUnknown(_ kid: String) throws {
        let (set, _) = try Self.set()
        expectCode(.unsupportedKeyType) { _ = try set.selectKey(keyID: kid, algorithm: .ed25519) }
        let signer = try TestKeys.jwk("ed25519.jwk")
        let token = try CompactJWS.sign(payload: "{}", header: ["kid": .string(kid)], key: signer, algorithm: .ed25519)
        expectCode(.unsupportedKeyType) { try CompactJWS(token).verify(with: set) }
        // Still a typed answer once the set is narrowed (the record of skipped keys is kept).
        expectCode(.unsupportedKeyType) { _ = try set.filter { $0.keyType != .oct }.selectKey(keyID: kid, algorithm: .ed25519) }
    }

    @Test("a kid no key has stays key_not_found; a malformed key's kid is not called an unknown type")
    func otherKids() throws {
        let (set, _) = try Self.set()
        expectCode(.keyNotFound) { _ = try set.selectKey(keyID: "nobody", algorithm: .ed25519) }
        let malformed = try JWKSet(json: #"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"AAAA","kid":"short"}]}"#)
        #expect(malformed.skipped.first?.error.code == .invalidKey)
        expectCode(.keyNotFound) { _ = try malformed.selectKey(keyID: "short", algorithm: .ed25519) }
    }

    @Test("a single unknown-type key is unsupported_key, not a crash; a set of only unknown keys is empty, not an error")
    func onlyUnknown() throws {
        expectCode(.unsupportedKey) { _ = try JWK(json: #"{"kty":"PQX","kid":"x"}"#) }
        let set = try JWKSet(json: #"{"keys":[{"kty":"PQX","kid":"x"},{"kty":"AKP","alg":"FN-DSA-512","pub":"AA","kid":"y"}]}"#)
        #expect(set.keys.isEmpty)
        #expect(set.skipped.count == 2)
        expectCode(.unsupportedKeyType) { _ = try set.selectKey(keyID: "y", algorithm: .es256) }
    }
}
