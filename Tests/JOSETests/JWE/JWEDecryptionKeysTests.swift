import Foundation
import Testing
@testable import JOSE

@Suite("JWE: decryption key sets (rotation, PEM keys, client secret) and nested JWTs")
struct JWEDecryptionKeysTests {
    static func withKid(_ key: JWK, _ kid: String?) -> JWK {
        var copy = key
        copy.keyID = kid
        return copy
    }

    @Test("rotation: the key named by kid decrypts; an unknown kid falls to kid-less keys; another kid is never tried")
    func rotation() throws {
        let old = try JWK.generate(.ec(.p256)), new = try JWK.generate(.ec(.p256))
        let keys = JWEDecryptionKeys(keys: [Self.withKid(new, "new"), Self.withKid(old, "old")])
        let toOld = try CompactJWE.encrypt("old", to: Self.withKid(old, "old"), algorithm: .ecdhES, encryption: .a256GCM)
        #expect(try keys.decrypt(toOld) == Array("old".utf8))
        // No kid: tried in order until one decrypts.
        let noKid = try CompactJWE.encrypt("nokid", to: Self.withKid(old, nil), algorithm: .ecdhESA128KW, encryption: .a128GCM)
        #expect(try keys.decrypt(noKid) == Array("nokid".utf8))
        // A PEM key has no kid: it fits a JWE naming a thumbprint it does not know.
        let pemKey = try JWK(pem: try old.privateKeyPEM())
        #expect(pemKey.keyID == nil)
        let named = try CompactJWE.encrypt("pem", to: Self.withKid(old, "thumbprint"), algorithm: .ecdhES, encryption: .a128CBCHS256)
        #expect(try JWEDecryptionKeys(keys: [pemKey]).decrypt(named) == Array("pem".utf8))
        // A kid that names another key: that key is tried, the kid-less one is not.
        let misnamed = try CompactJWE.encrypt("x", to: Self.withKid(old, "new"), algorithm: .ecdhES, encryption: .a128GCM)
        expectCode(.decryptionFailed) { _ = try JWEDecryptionKeys(keys: [Self.withKid(new, "new"), pemKey]).decrypt(misnamed) }
        expectCode(.keyNotFound) { _ = try JWEDecryptionKeys(keys: [Self.withKid(new, "other")]).decrypt(misnamed) }
        // Public keys and keys whose use is "sig" never fit.
        var signing = Self.withKid(old, "old")
        signing.use = "sig"
        expectCode(.keyUsageNotPermitted) { _ = try JWEDecryptionKeys(keys: [signing]).decrypt(toOld) }
        expectCode(.keyNotFound) { _ = try JWEDecryptionKeys(keys: [try JWK(pem: old.publicKeyPEM())]).decrypt(noKid) }
    }

    @Test("client secret: OpenID Connect Core §10.2 keys for A*KW, A*GCMKW and dir")
    func clientSecret() throws {
        let secret = "a client secret of some length"
        let keys = JWEDecryptionKeys(keys: [], clientSecret: secret)
        let sha256 = DigestAlgorithm.sha256.hash(Array(secret.utf8)), sha512 = DigestAlgorithm.sha512.hash(Array(secret.utf8))
        let cases: [(JWEKeyAlgorithm, JWEContentEncryption, [UInt8])] = [
            (.a128KW, .a128GCM, Array(sha256[0..<16])), (.a256KW, .a256CBCHS512, sha256), (.a192GCMKW, .a128GCM, Array(sha256[0..<24])),
            (.direct, .a128GCM, Array(sha256[0..<16])), (.direct, .a256CBCHS512, sha512),
            (.direct, .a192CBCHS384, DigestAlgorithm.sha384.hash(Array(secret.utf8))),
        ]
        for (algorithm, encryption, expected) in cases {
            let token = try CompactJWE.encrypt("hi", to: JWK(symmetricKey: expected), algorithm: algorithm, encryption: encryption)
            #expect(try keys.decrypt(token) == Array("hi".utf8), "\(algorithm) \(encryption)")
            #expect(JWK.derivedFromClientSecret(secret, algorithm: algorithm, encryption: encryption)?.sizeInBits == expected.count * 8)
        }
        #expect(JWK.derivedFromClientSecret(secret, algorithm: .rsaOAEP256, encryption: .a128GCM) == nil)
        let wrong = try CompactJWE.encrypt("hi", to: JWK(symmetricKey: Array(repeating: 7, count: 16)), algorithm: .a128KW, encryption: .a128GCM)
        expectCode(.decryptionFailed) { _ = try keys.decrypt(wrong) }
        expectCode(.keyNotFound) { _ = try JWEDecryptionKeys.none.decrypt(wrong) }
        #expect(!"\(keys)".contains(secret) && !String(reflecting: keys).contains(secret))
    }

    @Test("nested JWT: decrypt then verify; an unsigned or badly signed plaintext is refused")
    func nested() throws {
        let signer = Self.withKid(try JWK.generate(.ec(.p256)), "sig")
        let encryption = try JWK.generate(.rsa(bits: 2048))
        let decryptionKeys = JWEDecryptionKeys(keys: [encryption])
        let now = Int(Date().timeIntervalSince1970)
        let claims: JSONObject = ["iss": "https://op.example", "aud": "client", "sub": "alice", "exp": .integer(Int64(now + 300))]
        let signed = try JWT.sign(claims, key: signer, algorithm: .es256)
        let nested = try CompactJWE.encrypt(signed, to: encryption, algorithm: .rsaOAEP256, encryption: .a256GCM, contentType: "JWT")
        let jwt = try JWT.decryptAndVerify(nested, decryptionKeys: decryptionKeys, keys: JWKSet(keys: [signer]), issuer: "https://op.example", audience: "client")
        #expect(try jwt.claims.subject == "alice")
        // Encrypted but not signed: refused, though it decrypts.
        let bare = try CompactJWE.encrypt(claims.jsonString(), to: encryption, algorithm: .rsaOAEP256, encryption: .a256GCM)
        expectCode(.malformedToken) {
            _ = try JWT.decryptAndVerify(bare, decryptionKeys: decryptionKeys, keys: JWKSet(keys: [signer]), issuer: "https://op.example", audience: "client")
        }
        // Signed by another key: the signature check still applies.
        let forged = try CompactJWE.encrypt(JWT.sign(claims, key: Self.withKid(try JWK.generate(.ec(.p256)), "sig"), algorithm: .es256),
                                            to: encryption, algorithm: .rsaOAEP256, encryption: .a256GCM, contentType: "JWT")
        expectCode(.invalidSignature) {
            _ = try JWT.decryptAndVerify(forged, decryptionKeys: decryptionKeys, keys: JWKSet(keys: [signer]), issuer: "https://op.example", audience: "client")
        }
        // Not encrypted, or cty naming something else: refused.
        expectCode(.malformedToken) { _ = try NestedJWT.signedToken(in: signed, decryptionKeys: decryptionKeys) }
        let wrongType = try CompactJWE.encrypt(signed, to: encryption, algorithm: .rsaOAEP256, encryption: .a256GCM, contentType: "json")
        expectCode(.malformedToken) { _ = try NestedJWT.signedToken(in: wrongType, decryptionKeys: decryptionKeys) }
        // The wrong audience is still caught.
        expectCode(.audienceMismatch) {
            _ = try JWT.decryptAndVerify(nested, decryptionKeys: decryptionKeys, keys: JWKSet(keys: [signer]), issuer: "https://op.example", audience: "other")
        }
    }

    @Test("nested JWT: signedToken itself refuses an inner alg none (any spelling), a missing alg and an empty signature")
    func nestedUnsignedRefusedAtDecryption() throws {
        let encryption = try JWK.generate(.rsa(bits: 2048))
        let decryptionKeys = JWEDecryptionKeys(keys: [encryption])
        let payload = Base64URL.encode(Array(#"{"iss":"https://op.example","sub":"alice"}"#.utf8))
        func inner(_ header: String, signature: String = "") -> String {
            Base64URL.encode(Array(header.utf8)) + "." + payload + "." + signature
        }
        func nested(_ token: String) throws -> String {
            try CompactJWE.encrypt(token, to: encryption, algorithm: .rsaOAEP256, encryption: .a256GCM, contentType: "JWT")
        }
        for spelling in ["none", "None", "NONE"] {
            expectCode(.unsupportedAlgorithm) {
                _ = try NestedJWT.signedToken(in: try nested(inner(#"{"alg":"\#(spelling)"}"#)), decryptionKeys: decryptionKeys)
            }
        }
        expectCode(.malformedToken) {
            _ = try NestedJWT.signedToken(in: try nested(inner(#"{"typ":"JWT"}"#, signature: "AAAA")), decryptionKeys: decryptionKeys)
        }
        expectCode(.malformedToken) {
            _ = try NestedJWT.signedToken(in: try nested(inner(#"{"alg":"RS256"}"#)), decryptionKeys: decryptionKeys)
        }
        // A signed inner token still comes out unchanged.
        let signer = try JWK.generate(.ec(.p256))
        let signed = try JWT.sign(["sub": "alice"], key: signer, algorithm: .es256)
        #expect(try NestedJWT.signedToken(in: try nested(signed), decryptionKeys: decryptionKeys) == signed)
    }
}
