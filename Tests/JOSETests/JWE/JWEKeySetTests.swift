import Testing

@testable import JOSE

@Suite("JWE: key selection from a JWK Set, and robustness")
struct JWEKeySetTests {
    static func oct(_ byte: UInt8, _ count: Int, kid: String?) -> JWK {
        var key = JWK(symmetricKey: Array(repeating: byte, count: count))
        key.keyID = kid
        return key
    }

    @Test("by kid, or the single key that fits; ambiguity and absence are typed")
    func selection() throws {
        let a = Self.oct(1, 16, kid: "a"), b = Self.oct(2, 16, kid: "b"), big = Self.oct(3, 32, kid: "c")
        let ec = try JWK.generate(.ec(.p256))
        let set = JWKSet(keys: [a, b, big, ec])
        let toB = try CompactJWE(CompactJWE.encrypt("for b", to: b, algorithm: .a128KW, encryption: .a128GCM))
        #expect(try String(decoding: toB.decrypt(with: set), as: UTF8.self) == "for b")
        // No kid: the only 32-byte secret fits A256KW; two 16-byte secrets make A128KW ambiguous.
        let toBig = try CompactJWE(CompactJWE.encrypt("big", to: Self.oct(3, 32, kid: nil), algorithm: .a256KW, encryption: .a128GCM))
        #expect(try toBig.key(in: set).keyID == "c")
        let noKid = try CompactJWE(CompactJWE.encrypt("x", to: Self.oct(1, 16, kid: nil), algorithm: .a128KW, encryption: .a128GCM))
        expectCode(.ambiguousKey) { _ = try noKid.key(in: set) }
        let toEC = try CompactJWE(CompactJWE.encrypt("ec", to: ec, algorithm: .ecdhES, encryption: .a256GCM))
        #expect(try String(decoding: toEC.decrypt(with: set), as: UTF8.self) == "ec")
        expectCode(.keyNotFound) { _ = try toB.key(in: JWKSet(keys: [a, big])) }
        var signing = b
        signing.use = "sig"
        expectCode(.keyUsageNotPermitted) { _ = try toB.key(in: JWKSet(keys: [a, signing])) }
        expectCode(.ambiguousKey) { _ = try toB.key(in: JWKSet(keys: [b, Self.oct(9, 16, kid: "b")])) }
    }

    @Test("every single-byte change of a token is a typed error or the same plaintext, never a crash")
    func mutations() throws {
        let rsa = try JWK(json: JWEExamples.a1Key)
        let ec = try JWK.generate(.ec(.p384))
        let cases: [(JWK, JWEKeyAlgorithm, JWEContentEncryption)] = [
            (Self.oct(1, 16, kid: nil), .a128KW, .a128CBCHS256), (Self.oct(1, 32, kid: nil), .direct, .a256GCM),
            (Self.oct(1, 24, kid: nil), .a192GCMKW, .a192GCM), (rsa, .rsaOAEP, .a128GCM), (ec, .ecdhESA192KW, .a256CBCHS512),
        ]
        let replacements = Array("A_-.=+/ \u{7F}".utf8)
        for (key, algorithm, encryption) in cases {
            let token = Array(try CompactJWE.encrypt("mutate me", to: key, algorithm: algorithm, encryption: encryption).utf8)
            var accepted = 0
            for index in stride(from: 0, to: token.count, by: max(1, token.count / 150)) {
                for replacement in replacements where replacement != token[index] {
                    var mutated = token
                    mutated[index] = replacement
                    do {
                        let plaintext = try CompactJWE(String(decoding: mutated, as: UTF8.self)).decrypt(with: key)
                        #expect(plaintext == Array("mutate me".utf8))
                        accepted += 1
                    } catch is JOSEError {
                    } catch {
                        Issue.record("untyped error \(error)")
                    }
                }
            }
            // Only changes that leave every decoded byte the same could pass; here none do.
            #expect(accepted == 0, "\(algorithm) + \(encryption)")
        }
    }
}
