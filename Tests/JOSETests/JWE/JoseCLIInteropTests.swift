import Foundation
import Testing

@testable import JOSE

/// JWEs made by Debian's `jose` command line (José, latchset) decrypt here, and
/// JWEs made here decrypt there, with keys `jose jwk gen` generates.
@Suite("JWE interop: the jose command line", .enabled(if: Tool.find("jose") != nil, "needs the jose command line"))
struct JoseCLIInteropTests {
    struct Case: Sendable, CustomStringConvertible {
        var template: String
        var algorithm: JWEKeyAlgorithm
        var encryption: JWEContentEncryption
        var description: String { "\(algorithm) + \(encryption)" }
    }

    /// Every key management algorithm both implement, with every content encryption (the
    /// ECDH-ES ones on P-256, and on P-384 and P-521 with A256GCM). `dir` keys are generated
    /// for the content encryption (`jose` then names it as the key's `alg`, RFC 7520 §5.6).
    /// RSA-OAEP is left out: this `jose` (Debian, José 11 on OpenSSL 3) fails to wrap with it
    /// ("Wrapping failed!"); jwcrypto covers RSA-OAEP and RSA-OAEP-256 both ways.
    static let cases: [Case] =
        JWEKeyAlgorithm.allCases.filter { $0 != .rsaOAEP && $0 != .rsaOAEP256 }.flatMap { algorithm in
            JWEContentEncryption.allCases.map { encryption in
                let template: String
                switch algorithm {
                case .direct: template = #"{"alg":"\#(encryption.rawValue)"}"#
                case .ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW: template = #"{"kty":"EC","crv":"P-256"}"#
                default: template = #"{"alg":"\#(algorithm.rawValue)"}"#
                }
                return Case(template: template, algorithm: algorithm, encryption: encryption)
            }
        }
        + ["P-384", "P-521"].flatMap { curve in
            [JWEKeyAlgorithm.ecdhES, .ecdhESA256KW].map {
                Case(template: #"{"kty":"EC","crv":"\#(curve)"}"#, algorithm: $0, encryption: .a256GCM)
            }
        }

    @Test("jose encrypts, this library decrypts; this library encrypts, jose decrypts", arguments: cases)
    func both(_ c: Case) async throws {
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let keyPath = directory.appendingPathComponent("key.jwk").path
        let generated = try await Tool.run("jose", ["jwk", "gen", "-i", c.template, "-o", keyPath])
        try #require(generated.status == 0, "jose jwk gen: \(generated.stderr)")
        let key = try JWK(json: String(decoding: try Data(contentsOf: URL(fileURLWithPath: keyPath)), as: UTF8.self))
        let plaintext = "interop \(c) ✓"
        let plaintextPath = directory.appendingPathComponent("pt").path
        try Data(plaintext.utf8).write(to: URL(fileURLWithPath: plaintextPath))

        // jose → here.
        let encrypted = try await Tool.run(
            "jose",
            [
                "jwe", "enc", "-i", #"{"protected":{"alg":"\#(c.algorithm.rawValue)","enc":"\#(c.encryption.rawValue)"}}"#,
                "-I", plaintextPath, "-k", keyPath, "-o", "-", "-c",
            ])
        try #require(encrypted.status == 0, "jose jwe enc: \(encrypted.stderr)")
        let token = encrypted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let jwe = try CompactJWE(token)
        #expect(jwe.keyAlgorithmName == c.algorithm.rawValue)
        #expect(jwe.encryptionName == c.encryption.rawValue)
        #expect(try jwe.decryptString(with: key) == plaintext)

        // here → jose.
        let ours = try CompactJWE.encrypt(plaintext, to: key, algorithm: c.algorithm, encryption: c.encryption)
        let tokenPath = directory.appendingPathComponent("ours.jwe").path
        try Data(ours.utf8).write(to: URL(fileURLWithPath: tokenPath))
        let decrypted = try await Tool.run("jose", ["jwe", "dec", "-i", tokenPath, "-k", keyPath, "-O", "-"])
        #expect(decrypted.status == 0, "jose jwe dec: \(decrypted.stderr)")
        #expect(decrypted.stdout == plaintext)

        // A token tampered here is refused there too (the check is not vacuous).
        let tampered = try JWERoundTripTests.tamper(ours, segment: 4, JWERoundTripTests.flipLast)
        try Data(tampered.utf8).write(to: URL(fileURLWithPath: tokenPath))
        await #expect(try Tool.run("jose", ["jwe", "dec", "-i", tokenPath, "-k", keyPath, "-O", "-"]).status != 0)
    }
}
