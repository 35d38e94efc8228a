import Testing
@testable import JOSE

@Suite("JWE: RFC 7516 Appendix A examples")
struct RFC7516ExampleTests {
    @Test("A.1 RSA-OAEP + A256GCM decrypts to the published plaintext")
    func a1() throws {
        let key = try JWK(json: JWEExamples.a1Key)
        let jwe = try CompactJWE(JWEExamples.a1Token)
        #expect(jwe.keyAlgorithmName == "RSA-OAEP")
        #expect(jwe.encryptionName == "A256GCM")
        #expect(try jwe.decryptString(with: key) == JWEExamples.a1Plaintext)
    }

    @Test("A.2 RSA1_5 is refused by design, with the key management algorithm named")
    func a2Refused() throws {
        let key = try JWK(json: JWEExamples.a1Key)
        let jwe = try CompactJWE(JWEExamples.a2Token)
        expectCode(.unsupportedAlgorithm) { _ = try jwe.decrypt(with: key) }
        expectCode(.unsupportedAlgorithm) {
            _ = try jwe.decrypt(with: key, policy: JWEDecryptionPolicy(allowedKeyAlgorithms: Set(JWEKeyAlgorithm.allCases)))
        }
    }

    @Test("A.3 A128KW + A128CBC-HS256 decrypts to the published plaintext")
    func a3() throws {
        let key = try JWK(json: JWEExamples.a3Key)
        #expect(try CompactJWE(JWEExamples.a3Token).decryptString(with: key) == JWEExamples.a3Plaintext)
    }

    @Test("A.3's key wrap and CBC-HS output are reproduced byte for byte from its CEK and IV")
    func a3Primitives() throws {
        let parts = JWEExamples.a3Token.split(separator: ".").map(String.init)
        let kek = try Base64URL.decode("GawgguFyGrWKav7AX4VKUg")
        #expect(try AESKeyWrap.wrap(JWEExamples.a3CEK, kek: kek) == Base64URL.decode(parts[1]))
        #expect(AESKeyWrap.unwrap(try Base64URL.decode(parts[1]), kek: kek) == JWEExamples.a3CEK)
        let sealed = try ContentCipher.encrypt(Array(JWEExamples.a3Plaintext.utf8), key: JWEExamples.a3CEK, iv: JWEExamples.a3IV,
                                               aad: Array(parts[0].utf8), encryption: .a128CBCHS256)
        #expect(Base64URL.encode(sealed.ciphertext) == parts[3])
        #expect(Base64URL.encode(sealed.tag) == parts[4])
    }
}
