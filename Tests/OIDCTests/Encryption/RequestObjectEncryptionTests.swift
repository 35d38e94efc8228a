import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("Encrypted request objects and the client's published JWK Set")
struct RequestObjectEncryptionTests {
    @Test("a request object is signed, then encrypted to the provider's use: enc key (never its signing key)")
    func encrypted() throws {
        var signing = try JWK.generate(.rsa(bits: 2048)).publicKey
        signing.use = "sig"
        signing.keyID = "sig-1"
        let providerPrivate = try JWK.generate(.ec(.p256))
        var encryption = providerPrivate.publicKey
        encryption.use = "enc"
        encryption.keyID = "enc-1"
        let clientKey = try JWK.generate(.ec(.p256))
        let signed = try RequestObject.sign(
            parameters: [("response_type", "code"), ("scope", "openid")], clientID: "client",
            issuer: "https://op.example", key: clientKey, algorithm: .es256)
        let jwe = try RequestObject.encrypt(signed, to: JWKSet(keys: [signing, encryption]))
        let parsed = try CompactJWE(jwe)
        #expect(parsed.header.keyID == "enc-1" && parsed.keyAlgorithmName == "ECDH-ES" && parsed.header.contentType == "JWT")
        var withKid = providerPrivate
        withKid.keyID = "enc-1"
        let inner = try NestedJWT.signedToken(in: jwe, decryptionKeys: JWEDecryptionKeys(keys: [withKid]))
        #expect(inner == signed)
        #expect(throws: OIDCError.self) { try RequestObject.encrypt(signed, to: JWKSet(keys: [signing])) }
        #expect(throws: OIDCError.self) { try RequestObject.encrypt(signed, to: JWKSet(keys: [encryption]), algorithm: .rsaOAEP256) }
    }

    @Test("the recipient: use: enc only (a use: sig key listed first, a key without use beside them are skipped); sig only: typed error")
    func recipientIsAnEncryptionKey() throws {
        var signing = try JWK.generate(.rsa(bits: 2048)).publicKey
        signing.use = "sig"
        signing.keyID = "sig-1"
        var unlabelled = try JWK.generate(.rsa(bits: 2048)).publicKey
        unlabelled.keyID = "no-use"
        let providerPrivate = try JWK.generate(.rsa(bits: 2048))
        var encryption = providerPrivate.publicKey
        encryption.use = "enc"
        encryption.keyID = "enc-1"
        let signed = try RequestObject.sign(
            parameters: [("scope", "openid")], clientID: "client", issuer: "https://op.example",
            key: try JWK.generate(.ec(.p256)), algorithm: .es256)
        let jwe = try RequestObject.encrypt(signed, to: JWKSet(keys: [signing, unlabelled, encryption]))
        #expect(try CompactJWE(jwe).header.keyID == "enc-1")
        #expect(try NestedJWT.signedToken(in: jwe, decryptionKeys: JWEDecryptionKeys(keys: [providerPrivate])) == signed)
        let refused = #expect(throws: OIDCError.self) { try RequestObject.encrypt(signed, to: JWKSet(keys: [signing, unlabelled])) }
        #expect(refused?.code == .requestObjectFailed)
        // No key states a use: the key's type and alg decide (an RS256 key is not an encryption key).
        var rs256 = unlabelled
        rs256.algorithm = "RS256"
        var ecdh = try JWK.generate(.ec(.p256)).publicKey
        ecdh.keyID = "ecdh"
        #expect(try CompactJWE(RequestObject.encrypt(signed, to: JWKSet(keys: [rs256, ecdh]))).header.keyID == "ecdh")
        #expect(try CompactJWE(RequestObject.encrypt(signed, to: JWKSet(keys: [unlabelled]))).header.keyID == "no-use")
    }

    @Test("the client's JWK Set: public halves only, use sig/enc, a kid for each; secrets never published")
    func clientJWKS() throws {
        let signing = try JWK.generate(.ec(.p256)), decryption = try JWK.generate(.rsa(bits: 2048))
        let document = ClientJWKSet.document(
            signingKeys: [signing], decryptionKeys: JWEDecryptionKeys(keys: [decryption, JWK(symmetricKey: Array(repeating: 9, count: 32))]))
        let set = try JWKSet(json: JSONValue.object(document).jsonString())
        #expect(set.keys.count == 2)
        #expect(set.keys.map(\.use) == ["sig", "enc"] && set.keys.allSatisfy { !$0.isPrivate && $0.keyID != nil })
        #expect(set.keys[1].keyID == decryption.thumbprint())
        #expect(!JSONValue.object(document).jsonString().contains("\"d\""))
        // What the provider encrypts to that published key, the client decrypts.
        let token = try CompactJWE.encrypt("hi", to: set.keys[1], algorithm: .rsaOAEP256, encryption: .a256GCM)
        #expect(try JWEDecryptionKeys(keys: [decryption]).decrypt(token) == Array("hi".utf8))
    }
}

@Suite("Unsigned request objects, for encryption only")
struct UnsignedRequestObjectTests {
    @Test("alg none with the same claims as a signed one; encrypted, it decrypts to exactly that")
    func unsigned() throws {
        let object = try RequestObject.unsigned(parameters: [("response_type", "code")], clientID: "client", issuer: "https://op.example")
        let parts = object.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts[2].isEmpty)
        let header = try JSONParser.parseObject(Base64URL.decode(String(parts[0])), what: "header")
        let claims = try JSONParser.parseObject(Base64URL.decode(String(parts[1])), what: "claims")
        #expect(header["alg"]?.stringValue == "none" && claims["aud"]?.stringValue == "https://op.example" && claims["response_type"]?.stringValue == "code")
        let key = try JWK.generate(.rsa(bits: 2048))
        var encryption = key.publicKey
        encryption.use = "enc"
        let jwe = try RequestObject.encrypt(object, to: JWKSet(keys: [encryption]))
        #expect(try JWEDecryptionKeys(keys: [key]).decrypt(jwe) == Array(object.utf8))
    }
}
