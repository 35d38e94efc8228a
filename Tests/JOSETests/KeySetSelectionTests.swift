import Foundation
import Testing

@testable import JOSE

@Suite("JWK Set key selection")
struct KeySetSelectionTests {
    static func hmac(_ byte: UInt8, kid: String?) -> (jwk: String, key: JWK) {
        var key = JWK(symmetricKey: Array(repeating: byte, count: 32))
        key.keyID = kid
        let k = Base64URL.encode(Array(repeating: byte, count: 32))
        let kidMember = kid.map { #","kid":"\#($0)""# } ?? ""
        return (#"{"kty":"oct","k":"\#(k)"\#(kidMember)}"#, key)
    }

    static func set(_ members: [String]) throws -> JWKSet { try JWKSet(json: #"{"keys":[\#(members.joined(separator: ","))]}"#) }

    static func sign(_ key: JWK, kid: String?) throws -> CompactJWS {
        var signer = key
        signer.keyID = nil
        let header: JSONObject = kid.map { ["kid": .string($0)] } ?? JSONObject()
        return try CompactJWS(CompactJWS.sign(payload: "x", header: header, key: signer, algorithm: .hs256))
    }

    @Test("the key named by kid is used")
    func byKid() throws {
        let a = Self.hmac(1, kid: "a"), b = Self.hmac(2, kid: "b")
        let keys = try Self.set([a.jwk, b.jwk])
        #expect(try Self.sign(b.key, kid: "b").verify(with: keys).keyID == "b")
        #expect(try Self.sign(a.key, kid: "a").verify(with: keys).keyID == "a")
        // The right kid with the wrong key's signature fails on the signature.
        expectCode(.invalidSignature) { try Self.sign(a.key, kid: "b").verify(with: keys) }
    }

    @Test("without kid, the single key fitting the algorithm is used")
    func singleFit() throws {
        let a = Self.hmac(1, kid: "a")
        try Self.sign(a.key, kid: nil).verify(with: Self.set([a.jwk]))
        // The real set: one ES256 key among six.
        var signer = try TestKeys.pem("p256.pem")
        signer.algorithm = nil
        let token = try CompactJWS(CompactJWS.sign(payload: "x", key: signer, algorithm: .es256))
        #expect(try token.verify(with: JWKSet(json: TestKeys.text("jwks.json"))).keyID == "p256-LrOOpBAi")
    }

    @Test("without kid, several fitting keys are ambiguous")
    func severalFit() throws {
        let a = Self.hmac(1, kid: "a"), b = Self.hmac(2, kid: "b")
        expectCode(.ambiguousKey) { try Self.sign(a.key, kid: nil).verify(with: Self.set([a.jwk, b.jwk])) }
    }

    @Test("a duplicate kid is ambiguous")
    func duplicateKid() throws {
        let a = Self.hmac(1, kid: "same"), b = Self.hmac(2, kid: "same")
        expectCode(.ambiguousKey) { try Self.sign(a.key, kid: "same").verify(with: Self.set([a.jwk, b.jwk])) }
    }

    @Test("a duplicate kid is ambiguous even when the other entry is unusable and was skipped")
    func duplicateKidWithSkippedKey() throws {
        // Wycheproof json_web_key_test tcId 4: the second key's "k" has non-zero trailing bits.
        let a = Self.hmac(1, kid: "same")
        let broken = #"{"kty":"oct","k":"-xxuDNsVZ2iJtos-akfXTSCt4UO2cruLCsbWlBingge","kid":"same"}"#
        let keys = try Self.set([a.jwk, broken])
        #expect(keys.keys.count == 1)
        #expect(keys.skipped.count == 1)
        expectCode(.ambiguousKey) { try Self.sign(a.key, kid: "same").verify(with: keys) }
    }

    @Test("an unknown kid is not found")
    func unknownKid() throws {
        let a = Self.hmac(1, kid: "a")
        expectCode(.keyNotFound) { try Self.sign(a.key, kid: "zzz").verify(with: Self.set([a.jwk])) }
    }

    @Test("a set mixing symmetric and asymmetric keys is refused unless allowed")
    func mixed() throws {
        let a = Self.hmac(1, kid: "a")
        let ec = try TestKeys.text("p256.pub.jwk")
        let keys = try Self.set([a.jwk, ec])
        #expect(keys.mixesSymmetricAndAsymmetricKeys)
        let jws = try Self.sign(a.key, kid: "a")
        expectCode(.invalidKeySet) { try jws.verify(with: keys) }
        try jws.verify(with: keys, policy: JWSVerificationPolicy(allowsMixedKeySets: true))
    }

    @Test("unparseable keys are skipped with a reason and the good ones are still used")
    func skipped() throws {
        let a = Self.hmac(1, kid: "a")
        let keys = try Self.set([
            #"{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA","kid":"bad-ec"}"#,
            a.jwk,
            #"{"kty":"ZZZ","kid":"unknown-type"}"#,
            #"{"kty":"RSA","n":"AQAB","e":"AQAB","kid":"tiny-rsa"}"#,
            #""not an object""#,
        ])
        #expect(keys.keys.map(\.keyID) == ["a"])
        #expect(keys.skipped.map(\.index) == [0, 2, 3, 4])
        #expect(keys.skipped.map(\.error.code) == [.invalidKey, .unsupportedKey, .invalidKey, .invalidKey])
        #expect(keys.skipped.map(\.keyID) == ["bad-ec", "unknown-type", "tiny-rsa", nil])
        try Self.sign(a.key, kid: "a").verify(with: keys)
        try Self.sign(a.key, kid: nil).verify(with: keys)
        expectCode(.keyNotFound) { try Self.sign(a.key, kid: "bad-ec").verify(with: keys) }
    }

    @Test("a document without a keys array is an invalid key set")
    func noKeys() throws {
        expectCode(.invalidKeySet) { _ = try JWKSet(json: #"{"kty":"oct","k":"AAAA"}"#) }
        expectCode(.invalidKeySet) { _ = try JWKSet(json: #"{"keys":{}}"#) }
        expectCode(.invalidJSON) { _ = try JWKSet(json: #"[]"#) }
    }
}
