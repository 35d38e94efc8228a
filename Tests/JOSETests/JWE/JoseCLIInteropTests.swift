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

    static let cases: [Case] = [
        Case(template: #"{"alg":"A128KW"}"#, algorithm: .a128KW, encryption: .a128CBCHS256),
        Case(template: #"{"alg":"A128KW"}"#, algorithm: .a128KW, encryption: .a256GCM),
        Case(template: #"{"alg":"A256GCMKW"}"#, algorithm: .a256GCMKW, encryption: .a192CBCHS384),
        Case(template: #"{"alg":"A256GCM"}"#, algorithm: .direct, encryption: .a256GCM),
        Case(template: #"{"alg":"ECDH-ES+A128KW","crv":"P-256"}"#, algorithm: .ecdhESA128KW, encryption: .a256CBCHS512),
        Case(template: #"{"alg":"ECDH-ES+A256KW","crv":"P-521"}"#, algorithm: .ecdhESA256KW, encryption: .a128GCM),
    ]

    @Test("jose encrypts, this library decrypts; this library encrypts, jose decrypts", arguments: cases)
    func both(_ c: Case) throws {
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let keyPath = directory.appendingPathComponent("key.jwk").path
        let generated = try Tool.run("jose", ["jwk", "gen", "-i", c.template, "-o", keyPath])
        try #require(generated.status == 0, "jose jwk gen: \(generated.stderr)")
        let key = try JWK(json: String(decoding: try Data(contentsOf: URL(fileURLWithPath: keyPath)), as: UTF8.self))
        let plaintext = "interop \(c) ✓"
        let plaintextPath = directory.appendingPathComponent("pt").path
        try Data(plaintext.utf8).write(to: URL(fileURLWithPath: plaintextPath))

        // jose → here.
        let encrypted = try Tool.run("jose", ["jwe", "enc", "-i", #"{"protected":{"enc":"\#(c.encryption.rawValue)"}}"#,
                                              "-I", plaintextPath, "-k", keyPath, "-o", "-", "-c"])
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
        let decrypted = try Tool.run("jose", ["jwe", "dec", "-i", tokenPath, "-k", keyPath, "-O", "-"])
        #expect(decrypted.status == 0, "jose jwe dec: \(decrypted.stderr)")
        #expect(decrypted.stdout == plaintext)

        // A token tampered here is refused there too (the check is not vacuous).
        let tampered = try JWERoundTripTests.tamper(ours, segment: 4, JWERoundTripTests.flipLast)
        try Data(tampered.utf8).write(to: URL(fileURLWithPath: tokenPath))
        #expect(try Tool.run("jose", ["jwe", "dec", "-i", tokenPath, "-k", keyPath, "-O", "-"]).status != 0)
    }
}
