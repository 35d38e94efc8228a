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

@Suite("JWE: RFC 7518 Appendix C (ECDH-ES key agreement)")
struct RFC7518ECDHTests {
    /// Bob's static key and Alice's ephemeral key of RFC 7518 Appendix C.
    static let bob = #"{"kty":"EC","crv":"P-256","x":"weNJy2HscCSM6AEDTDg04biOvhFhyyWvOHQfeF_PxMQ","y":"e8lnCO-AlStT-NJVX-crhB7QRYhiix03illJOVAOyck","d":"VEmDZpDXXK8p8N0Cndsxs924q6nS1RXFASRl6BfUqdw"}"#
    static let alice = #"{"kty":"EC","crv":"P-256","x":"gI0GAILBdu7T53akrFmMyGcsF3n5dO7MmwNBHKW5SV0","y":"SLW_xSffzlPWrHEVI30DHM_4egVwt3NQqeUD7nMFpps","d":"0_NxaRPUMQoAJt50Gz8YiTr8gRTwyEaCumd-MToTmIo"}"#

    @Test("Z and the Concat KDF give the published A128GCM key, from either side")
    func appendixC() throws {
        let bob = try JWK(json: Self.bob), alice = try JWK(json: Self.alice)
        guard let bobKey = bob.evpKey, let aliceKey = alice.evpKey else { Issue.record("no EC keys"); return }
        let z = try ECDHES.sharedSecret(privateKey: aliceKey, peer: bobKey)
        #expect(z == (try ECDHES.sharedSecret(privateKey: bobKey, peer: aliceKey)))
        let derived = ECDHES.concatKDF(z: z, keyLength: 16, algorithmID: "A128GCM", apu: Array("Alice".utf8), apv: Array("Bob".utf8))
        #expect(Base64URL.encode(derived) == "VqqN6vgjbSBcIijNcacQGg")
    }
}
