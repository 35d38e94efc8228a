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

    @Test("rotation: the key named by kid decrypts; an unknown kid falls to kid-less keys, then to keys with another kid")
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
        // A kid that names another key: that key is tried first, then the kid-less one, which decrypts.
        let misnamed = try CompactJWE.encrypt("x", to: Self.withKid(old, "new"), algorithm: .ecdhES, encryption: .a128GCM)
        #expect(try JWEDecryptionKeys(keys: [Self.withKid(new, "new"), pemKey]).decrypt(CompactJWE(misnamed)).key.keyID == nil)
        // Only wrong keys: each fails authenticated decryption cleanly; the error is typed.
        expectCode(.decryptionFailed) { _ = try JWEDecryptionKeys(keys: [Self.withKid(new, "other")]).decrypt(misnamed) }
        // Public keys and keys whose use is "sig" never fit.
        var signing = Self.withKid(old, "old")
        signing.use = "sig"
        expectCode(.keyUsageNotPermitted) { _ = try JWEDecryptionKeys(keys: [signing]).decrypt(toOld) }
        expectCode(.keyNotFound) { _ = try JWEDecryptionKeys(keys: [try JWK(pem: old.publicKeyPEM())]).decrypt(noKid) }
    }

    @Test("a JWE kid is a hint: no key has it (glewlwyd's own kid) -> every key that fits is tried; keys with that kid first")
    func kidIsAHint() throws {
        let ours = try JWK.generate(.ec(.p256)), other = try JWK.generate(.ec(.p256))
        // The provider names the recipient by a kid of its own (43 characters, no key file carries it).
        let providerKid = String(repeating: "Q", count: 43)
        let token = try CompactJWE.encrypt("hello", to: Self.withKid(ours, providerKid), algorithm: .ecdhES, encryption: .a128GCM)
        // A key file that carries its own kid.
        let own = JWEDecryptionKeys(keys: [Self.withKid(ours, "my-own-kid")])
        #expect(try own.decrypt(token) == Array("hello".utf8))
        // A key set of two keys with their own kids, the right one second: the wrong one fails cleanly, the next decrypts.
        let two = JWEDecryptionKeys(keys: [Self.withKid(other, "first"), Self.withKid(ours, "second")])
        let opened = try two.decrypt(CompactJWE(token))
        #expect(opened.plaintext == Array("hello".utf8) && opened.key.keyID == "second")
        // The key with the header's kid comes first, then kid-less keys, then keys with other kids.
        let named = try CompactJWE.encrypt("n", to: Self.withKid(ours, "b"), algorithm: .ecdhES, encryption: .a128GCM)
        let ordered = JWEDecryptionKeys(keys: [Self.withKid(other, "a"), Self.withKid(ours, "b"), Self.withKid(other, nil)])
        #expect(try ordered.candidates(for: CompactJWE(named)).map(\.keyID) == ["b", nil, "a"])
        #expect(try ordered.decrypt(CompactJWE(named)).key.keyID == "b")
        // RSA too (glewlwyd's RSA-OAEP-256 + A256GCM), with a kid-carrying key among EC keys.
        let rsa = try JWK.generate(.rsa(bits: 2048))
        let rsaToken = try CompactJWE.encrypt("rsa", to: Self.withKid(rsa, providerKid), algorithm: .rsaOAEP256, encryption: .a256GCM)
        let mixed = JWEDecryptionKeys(keys: [
            Self.withKid(other, "ec"), Self.withKid(try JWK.generate(.rsa(bits: 2048)), "rsa-old"), Self.withKid(rsa, "rsa-new"),
        ])
        #expect(try mixed.candidates(for: CompactJWE(rsaToken)).map(\.keyID) == ["rsa-old", "rsa-new"])  // the EC key does not fit RSA-OAEP-256
        #expect(try mixed.decrypt(CompactJWE(rsaToken)).key.keyID == "rsa-new")
    }

    @Test("a kid that names no key: a set where none fits is keyNotFound; the key, never the token, decides the algorithm")
    func noneFitsAndNoAlgorithmConfusion() throws {
        let ours = try JWK.generate(.ec(.p256))
        let token = try CompactJWE.encrypt("x", to: Self.withKid(ours, "unknown"), algorithm: .ecdhES, encryption: .a128GCM)
        // None fits ECDH-ES on P-256: an RSA key, a P-384 key (not the epk's curve), an oct key, a P-256 key restricted
        // to another algorithm, a public key, a signing key.
        var restricted = Self.withKid(try JWK.generate(.ec(.p256)), "restricted")
        restricted.algorithm = "ECDH-ES+A128KW"
        var signing = Self.withKid(ours, "sig")
        signing.use = "sig"
        let unfit = JWEDecryptionKeys(keys: [
            Self.withKid(try JWK.generate(.rsa(bits: 2048)), "rsa"), Self.withKid(try JWK.generate(.ec(.p384)), "p384"),
            Self.withKid(JWK(symmetricKey: Array(repeating: 1, count: 16)), "oct"), restricted,
            Self.withKid(ours.publicKey, "public"), signing,
        ])
        expectCode(.keyNotFound) { _ = try unfit.decrypt(token) }
        expectCode(.keyNotFound) { _ = try unfit.candidates(for: CompactJWE(token)) }
        // A token that says `dir` is never opened with an RSA or EC key's material; only an oct key of the right
        // size fits, and a wrong one fails authenticated decryption.
        let secret = JWK(symmetricKey: Array(repeating: 7, count: 16))
        let direct = try CompactJWE.encrypt("d", to: Self.withKid(secret, "unknown"), algorithm: .direct, encryption: .a128GCM)
        let asymmetric = JWEDecryptionKeys(keys: [Self.withKid(try JWK.generate(.rsa(bits: 2048)), "rsa"), Self.withKid(ours, "ec")])
        expectCode(.keyNotFound) { _ = try asymmetric.decrypt(direct) }
        let wrongSecret = JWEDecryptionKeys(keys: [Self.withKid(ours, "ec"), Self.withKid(JWK(symmetricKey: Array(repeating: 8, count: 16)), "oct")])
        #expect(try wrongSecret.candidates(for: CompactJWE(direct)).map(\.keyID) == ["oct"])
        expectCode(.decryptionFailed) { _ = try wrongSecret.decrypt(direct) }
        // The named key cannot decrypt and nothing else fits: still said as such.
        expectCode(.keyUsageNotPermitted) { _ = try JWEDecryptionKeys(keys: [Self.withKid(signing, "unknown")]).decrypt(token) }
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
        let jwt = try JWT.decryptAndVerify(
            nested, decryptionKeys: decryptionKeys, keys: JWKSet(keys: [signer]), issuer: "https://op.example", audience: "client")
        #expect(try jwt.claims.subject == "alice")
        // Encrypted but not signed: refused, though it decrypts.
        let bare = try CompactJWE.encrypt(claims.jsonString(), to: encryption, algorithm: .rsaOAEP256, encryption: .a256GCM)
        expectCode(.malformedToken) {
            _ = try JWT.decryptAndVerify(bare, decryptionKeys: decryptionKeys, keys: JWKSet(keys: [signer]), issuer: "https://op.example", audience: "client")
        }
        // Signed by another key: the signature check still applies.
        let forged = try CompactJWE.encrypt(
            JWT.sign(claims, key: Self.withKid(try JWK.generate(.ec(.p256)), "sig"), algorithm: .es256),
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
