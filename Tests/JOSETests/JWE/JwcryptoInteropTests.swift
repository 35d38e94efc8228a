import Foundation
import Testing

@testable import JOSE

/// The jwcrypto venv's interpreter, when `Fixtures/interop/jwcrypto-setup.sh` made it.
enum Jwcrypto {
    static let directory = Fixtures.directory.appendingPathComponent("interop")
    static let python: String? = {
        let path = directory.appendingPathComponent(".venv-jwcrypto/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()
}

/// JWEs made by Python's jwcrypto decrypt here, and JWEs made here decrypt there, for
/// every key management algorithm with every content encryption (ECDH-ES on P-256, and
/// on P-384, P-521 and X25519 with A256GCM). jwcrypto runs from the venv that
/// `Fixtures/interop/jwcrypto-setup.sh` makes (Tests/run.sh calls it).
@Suite("JWE interop: Python jwcrypto", .enabled(if: Jwcrypto.python != nil, "needs Fixtures/interop/.venv-jwcrypto (jwcrypto-setup.sh)"))
struct JwcryptoInteropTests {
    static let python = Jwcrypto.python
    static let script = Jwcrypto.directory.appendingPathComponent("jwcrypto_jwe.py").path

    static let rsa: JWK? = try? JWK.generate(.rsa(bits: 2048))

    static func key(_ algorithm: JWEKeyAlgorithm, _ encryption: JWEContentEncryption, spec: JWK.GenerationSpec) throws -> JWK {
        switch algorithm {
        case .direct: return JWK(symmetricKey: try SecureRandom.bytes(encryption.keyLength))
        case .a128KW, .a128GCMKW: return JWK(symmetricKey: try SecureRandom.bytes(16))
        case .a192KW, .a192GCMKW: return JWK(symmetricKey: try SecureRandom.bytes(24))
        case .a256KW, .a256GCMKW: return JWK(symmetricKey: try SecureRandom.bytes(32))
        case .rsaOAEP, .rsaOAEP256: return try #require(rsa)
        case .ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW: return try JWK.generate(spec)
        }
    }

    struct Case: Sendable, CustomStringConvertible {
        let algorithm: JWEKeyAlgorithm
        let encryption: JWEContentEncryption
        let spec: JWK.GenerationSpec
        var description: String { "\(algorithm) + \(encryption) (\(spec))" }
    }

    static let cases: [Case] =
        JWEKeyAlgorithm.allCases.flatMap { a in JWEContentEncryption.allCases.map { Case(algorithm: a, encryption: $0, spec: .ec(.p256)) } }
        + [JWK.GenerationSpec.ec(.p384), .ec(.p521), .x25519].flatMap { spec in
            [JWEKeyAlgorithm.ecdhES, .ecdhESA128KW, .ecdhESA256KW].map { Case(algorithm: $0, encryption: .a256GCM, spec: spec) }
        }

    @Test("jwcrypto encrypts, this library decrypts; this library encrypts, jwcrypto decrypts", arguments: cases)
    func both(_ c: Case) async throws {
        let python = try #require(Self.python)
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let key = try Self.key(c.algorithm, c.encryption, spec: c.spec)
        let keyPath = directory.appendingPathComponent("key.jwk").path
        try Data(try key.privateJWKString().utf8).write(to: URL(fileURLWithPath: keyPath))
        let plaintext = "interop \(c) ✓"
        let plaintextPath = directory.appendingPathComponent("pt").path
        try Data(plaintext.utf8).write(to: URL(fileURLWithPath: plaintextPath))

        // jwcrypto → here.
        let encrypted = try await Tool.run(python, [Self.script, "enc", keyPath, c.algorithm.rawValue, c.encryption.rawValue, plaintextPath])
        try #require(encrypted.status == 0, "jwcrypto enc: \(encrypted.stderr)")
        let jwe = try CompactJWE(encrypted.stdout)
        #expect(jwe.keyAlgorithmName == c.algorithm.rawValue && jwe.encryptionName == c.encryption.rawValue)
        #expect(try jwe.decryptString(with: key) == plaintext)

        // here → jwcrypto.
        let ours = try CompactJWE.encrypt(plaintext, to: key.publicKey, algorithm: c.algorithm, encryption: c.encryption)
        let tokenPath = directory.appendingPathComponent("ours.jwe").path
        try Data(ours.utf8).write(to: URL(fileURLWithPath: tokenPath))
        let decrypted = try await Tool.run(python, [Self.script, "dec", keyPath, tokenPath])
        #expect(decrypted.status == 0, "jwcrypto dec: \(decrypted.stderr)")
        #expect(decrypted.stdout == plaintext)

        // Tampered here, refused there (the check is not vacuous).
        let tampered = try JWERoundTripTests.tamper(ours, segment: 4, JWERoundTripTests.flipLast)
        try Data(tampered.utf8).write(to: URL(fileURLWithPath: tokenPath))
        await #expect(try Tool.run(python, [Self.script, "dec", keyPath, tokenPath]).status != 0)
    }

    @Test(
        "X25519 PEM keys: jwcrypto encrypts to Keys/x25519.pub.pem and JWK(pem:) of Keys/x25519.pem decrypts; and back",
        arguments: [JWEKeyAlgorithm.ecdhES, .ecdhESA128KW])
    func x25519PEM(_ algorithm: JWEKeyAlgorithm) async throws {
        let python = try #require(Self.python)
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let privatePath = TestKeys.directory.appendingPathComponent("x25519.pem").path
        let publicPath = TestKeys.directory.appendingPathComponent("x25519.pub.pem").path
        let plaintext = "X25519 PEM interop \(algorithm) ✓"
        let plaintextPath = directory.appendingPathComponent("pt").path
        try Data(plaintext.utf8).write(to: URL(fileURLWithPath: plaintextPath))

        let encrypted = try await Tool.run(python, [Self.script, "enc", publicPath, algorithm.rawValue, "A128GCM", plaintextPath])
        try #require(encrypted.status == 0, "jwcrypto enc: \(encrypted.stderr)")
        let jwe = try CompactJWE(encrypted.stdout)
        #expect(jwe.header.members["epk"]?.objectValue?["crv"]?.stringValue == "X25519")
        #expect(try jwe.decryptString(with: TestKeys.pem("x25519.pem")) == plaintext)

        let ours = try CompactJWE.encrypt(plaintext, to: TestKeys.pem("x25519.pub.pem"), algorithm: algorithm, encryption: .a128GCM)
        let tokenPath = directory.appendingPathComponent("ours.jwe").path
        try Data(ours.utf8).write(to: URL(fileURLWithPath: tokenPath))
        let decrypted = try await Tool.run(python, [Self.script, "dec", privatePath, tokenPath])
        #expect(decrypted.status == 0, "jwcrypto dec: \(decrypted.stderr)")
        #expect(decrypted.stdout == plaintext)
    }
}
