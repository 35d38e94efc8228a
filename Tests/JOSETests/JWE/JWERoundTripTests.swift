import Testing

@testable import JOSE

@Suite("JWE: round trips and tampering")
struct JWERoundTripTests {
    static let rsa: JWK = { (try? JWK(json: JWEExamples.a1Key)) ?? JWK(symmetricKey: []) }()
    static let ecKeys: [JWK.Curve: JWK] = {
        var keys: [JWK.Curve: JWK] = [:]
        for curve in JWK.Curve.allCases { keys[curve] = try? JWK.generate(.ec(curve)) }
        return keys
    }()

    /// A key for `algorithm` with `encryption`.
    static func key(_ algorithm: JWEKeyAlgorithm, _ encryption: JWEContentEncryption, curve: JWK.Curve = .p256) -> JWK {
        switch algorithm {
        case .direct: return JWK(symmetricKey: (0..<encryption.keyLength).map { UInt8($0) })
        case .a128KW: return JWK(symmetricKey: Array(repeating: 0x11, count: 16))
        case .a192KW: return JWK(symmetricKey: Array(repeating: 0x22, count: 24))
        case .a256KW: return JWK(symmetricKey: Array(repeating: 0x33, count: 32))
        case .a128GCMKW: return JWK(symmetricKey: Array(repeating: 0x44, count: 16))
        case .a192GCMKW: return JWK(symmetricKey: Array(repeating: 0x55, count: 24))
        case .a256GCMKW: return JWK(symmetricKey: Array(repeating: 0x66, count: 32))
        case .rsaOAEP, .rsaOAEP256: return rsa
        case .ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW: return ecKeys[curve] ?? rsa
        }
    }

    static let pairs: [(JWEKeyAlgorithm, JWEContentEncryption)] =
        JWEKeyAlgorithm.allCases.flatMap { a in JWEContentEncryption.allCases.map { (a, $0) } }

    @Test("every key management algorithm with every content encryption", arguments: pairs)
    func roundTrip(_ algorithm: JWEKeyAlgorithm, _ encryption: JWEContentEncryption) throws {
        let key = Self.key(algorithm, encryption)
        for plaintext in [[], Array("hello".utf8), Array(repeating: UInt8(7), count: 1000)] as [[UInt8]] {
            let token = try CompactJWE.encrypt(plaintext, to: key, algorithm: algorithm, encryption: encryption, contentType: "JWT")
            let jwe = try CompactJWE(token)
            #expect(jwe.keyAlgorithmName == algorithm.rawValue)
            #expect(jwe.encryptionName == encryption.rawValue)
            #expect(jwe.header.contentType == "JWT")
            #expect(try jwe.decrypt(with: key) == plaintext)
        }
    }

    @Test("ECDH-ES on every curve, with apu/apv", arguments: JWK.Curve.allCases)
    func ecdhCurves(_ curve: JWK.Curve) throws {
        for algorithm in [JWEKeyAlgorithm.ecdhES, .ecdhESA256KW] {
            let key = Self.key(algorithm, .a256GCM, curve: curve)
            let token = try CompactJWE.encrypt(
                "secret", to: key, algorithm: algorithm, encryption: .a256GCM,
                header: ["apu": .string(Base64URL.encode("Alice")), "apv": .string(Base64URL.encode("Bob"))])
            #expect(try CompactJWE(token).decryptString(with: key) == "secret")
            // Changing apv changes the derived key: the header is authenticated anyway, but the KDF input is checked too.
            #expect(try CompactJWE(token).header.members["epk"]?.objectValue?["crv"]?.stringValue == curve.rawValue)
        }
    }

    /// Replaces segment `index` of a compact token with `transform` applied to its bytes.
    static func tamper(_ token: String, segment index: Int, _ transform: ([UInt8]) -> [UInt8]) throws -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[index] = Base64URL.encode(transform(try Base64URL.decode(parts[index])))
        return parts.joined(separator: ".")
    }

    static func flipLast(_ bytes: [UInt8]) -> [UInt8] {
        var copy = bytes
        if let last = copy.indices.last { copy[last] ^= 0x01 }
        return copy
    }

    @Test("an altered tag, ciphertext, IV, encrypted key or header is the one decryption_failed error", arguments: pairs)
    func tampering(_ algorithm: JWEKeyAlgorithm, _ encryption: JWEContentEncryption) throws {
        let key = Self.key(algorithm, encryption)
        let token = try CompactJWE.encrypt(Array("attack at dawn, bring snacks".utf8), to: key, algorithm: algorithm, encryption: encryption)
        var segments = [2, 3, 4]
        if algorithm.carriesEncryptedKey { segments.append(1) }
        var reasons: Set<String> = []
        for segment in segments {
            let altered = try Self.tamper(token, segment: segment, Self.flipLast)
            do {
                _ = try CompactJWE(altered).decrypt(with: key)
                Issue.record("segment \(segment) altered but decryption succeeded")
            } catch let error as JOSEError {
                #expect(error.code == .decryptionFailed, "segment \(segment): \(error)")
                reasons.insert(error.reason)
            }
        }
        // Truncated tag and a tag one byte longer.
        for transform: ([UInt8]) -> [UInt8] in [{ Array($0.dropLast()) }, { $0 + [0] }] {
            expectCode(.decryptionFailed) { _ = try CompactJWE(Self.tamper(token, segment: 4, transform)).decrypt(with: key) }
        }
        // The header is the AAD: a semantically equal header with another encoding fails too.
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let header = try JSONParser.parseObject(Base64URL.decode(parts[0]), what: "header")
        var reordered = JSONObject()
        for member in header.members.reversed() { reordered[member.name] = member.value }
        let reencoded = ([Base64URL.encode(Array(JSONValue.object(reordered).jsonString().utf8))] + parts.dropFirst()).joined(separator: ".")
        do {
            _ = try CompactJWE(reencoded, limits: .default).decrypt(with: key)
            Issue.record("re-encoded header accepted")
        } catch let error as JOSEError {
            #expect(error.code == .decryptionFailed)
            reasons.insert(error.reason)
        }
        #expect(reasons.count == 1, "every content failure reads the same")
    }

    @Test("a wrong key of the right kind is decryption_failed, whatever the algorithm")
    func wrongKey() throws {
        for algorithm in [JWEKeyAlgorithm.direct, .a128KW, .ecdhES, .ecdhESA128KW] {
            let key = Self.key(algorithm, .a128GCM)
            let other: JWK =
                algorithm.isECDH
                ? try JWK.generate(.ec(.p256))
                : JWK(symmetricKey: Array(repeating: 0x99, count: key.sizeInBits / 8))
            let token = try CompactJWE.encrypt("x", to: key, algorithm: algorithm, encryption: .a128GCM)
            expectCode(.decryptionFailed, "\(algorithm)") { _ = try CompactJWE(token).decrypt(with: other) }
        }
        let otherRSA = try JWK.generate(.rsa(bits: 2048))
        let token = try CompactJWE.encrypt("x", to: Self.rsa, algorithm: .rsaOAEP256, encryption: .a128CBCHS256)
        expectCode(.decryptionFailed) { _ = try CompactJWE(token).decrypt(with: otherRSA) }
    }
}
