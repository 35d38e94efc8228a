import Foundation
import Testing

@testable import JOSE

/// The 2026 venv's interpreter, when `Fixtures/interop/jose2026-setup.sh` made it (Tests/run.sh calls it).
enum Jose2026 {
    static let directory = Fixtures.directory.appendingPathComponent("interop")
    static let script = directory.appendingPathComponent("jose2026_interop.py").path
    static let python: String? = {
        let path = directory.appendingPathComponent(".venv-jose2026/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()
}

/// RFC 9864 `Ed25519` both ways with Python's jwcrypto 1.6.1 and joserfc 1.8.0 (both know the fully-specified
/// name), and JWK Sets holding `kty: AKP` keys: read here without failing whoever made them, and read there.
/// joserfc skips AKP (it has no ML-DSA); jwcrypto with cryptography 50 reads it.
@Suite("Interop: Ed25519 (RFC 9864) and AKP sets with jwcrypto and joserfc")
struct Ed25519InteropTests {
    static let libraries = ["jwcrypto", "joserfc"]

    @Test("under CI the venv exists (jose2026-setup.sh), so these tests never skip silently there")
    func venvUnderCI() {
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            #expect(Jose2026.python != nil, "Tests/JOSETests/Fixtures/interop/jose2026-setup.sh did not make .venv-jose2026")
        }
    }

    static func write(_ text: String, _ name: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("Python signs alg Ed25519 (and EdDSA), this library verifies; this library signs Ed25519, Python verifies", arguments: libraries)
    func bothWays(_ library: String) async throws {
        let python = try #require(Jose2026.python, "needs Fixtures/interop/.venv-jose2026 (jose2026-setup.sh)")
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        var key = try JWK.generate(.ed25519)
        key.keyID = key.thumbprint()
        key.algorithm = "Ed25519"
        let keyPath = try Self.write(try key.privateJWKString(), "key.jwk", in: directory)
        let publicPath = try Self.write(key.publicJWKString, "pub.jwk", in: directory)
        let payload = #"{"iss":"https://issuer.example","sub":"alice ✓"}"#
        let payloadPath = try Self.write(payload, "payload", in: directory)

        // There → here.
        let signed = try await Tool.run(python, [Jose2026.script, "sign", library, keyPath, "Ed25519", payloadPath])
        try #require(signed.status == 0, "\(library) sign: \(signed.stderr)")
        let theirs = try CompactJWS(signed.stdout)
        #expect(theirs.header.algorithmName == "Ed25519")
        #expect(theirs.header.keyID == key.keyID)
        try theirs.verify(with: JWK(json: key.publicJWKString))
        #expect(String(decoding: theirs.payload, as: UTF8.self) == payload)
        _ = try theirs.verify(with: JWKSet(json: #"{"keys":[\#(key.publicJWKString)]}"#))

        // Here → there, and a tampered token refused there (the check is not vacuous).
        let ours = try CompactJWS.sign(payload: payload, key: key, algorithm: .ed25519)
        let tokenPath = try Self.write(ours, "ours.jws", in: directory)
        let verified = try await Tool.run(python, [Jose2026.script, "verify", library, publicPath, "Ed25519", tokenPath])
        #expect(verified.status == 0, "\(library) verify: \(verified.stderr)")
        #expect(verified.stdout == payload)
        var parts = ours.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(#"{"sub":"mallory"}"#.utf8))
        _ = try Self.write(parts.joined(separator: "."), "ours.jws", in: directory)
        await #expect(try Tool.run(python, [Jose2026.script, "verify", library, publicPath, "Ed25519", tokenPath]).status == 1)

        // The legacy name both ways with a key that does not restrict its alg.
        key.algorithm = nil
        let unrestricted = try Self.write(try key.privateJWKString(), "any.jwk", in: directory)
        let legacy = try await Tool.run(python, [Jose2026.script, "sign", library, unrestricted, "EdDSA", payloadPath])
        try #require(legacy.status == 0, "\(library) sign EdDSA: \(legacy.stderr)")
        #expect(try CompactJWS(legacy.stdout).header.algorithmName == "EdDSA")
        try CompactJWS(legacy.stdout).verify(with: key.publicKey)
    }

    @Test("a set made here with AKP ML-DSA, unknown-kty and Ed25519 keys: Python reads it, never fatally, and verifies by kid", arguments: libraries)
    func ourSetThere(_ library: String) async throws {
        let python = try #require(Jose2026.python, "needs Fixtures/interop/.venv-jose2026 (jose2026-setup.sh)")
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        var key = try JWK.generate(.ed25519)
        key.keyID = "ed-here"
        key.algorithm = "Ed25519"
        let vectors = try Fixtures.object(Fixtures.directory.appendingPathComponent("interop/vectors_2026.json"))
        let akp = try JWK(jsonObject: try #require(vectors.array("mldsa").first?.objectValue?.object("jwk"))).publicJWK
        let document = #"{"keys":[\#(akp.jsonString()),{"kty":"PQX","kid":"future-here"},\#(key.publicJWKString)]}"#
        // Read here first: the AKP key is listed (usable where libcrypto has ML-DSA), the unknown one skipped.
        let here = try JWKSet(json: document)
        #expect(here.keys.map(\.keyID) == ["ml-dsa-44", "ed-here"])
        #expect(here.skipped.map(\.keyID) == ["future-here"])
        let setPath = try Self.write(document, "set.json", in: directory)
        let token = try CompactJWS.sign(payload: #"{"sub":"set"}"#, key: key, algorithm: .ed25519)
        let tokenPath = try Self.write(token, "token", in: directory)
        let run = try await Tool.run(python, [Jose2026.script, "set", library, setPath, "ed-here", "Ed25519", tokenPath])
        #expect(run.status == 0, "\(library): \(run.stderr)")
        let kept = run.stdout.split(separator: "\n").first.map(String.init)
        // joserfc skips the AKP and the unknown key; jwcrypto (cryptography 50) keeps the AKP key.
        #expect(kept == (library == "joserfc" ? "kept ed-here" : "kept ed-here ml-dsa-44"), "\(run.stdout)")
        #expect(run.stdout.contains(#"payload {"sub":"set"}"#))
    }

    @Test("a set made by jwcrypto with its own AKP key: read here without failing; its Ed25519 token verifies by kid")
    func theirSetHere() async throws {
        let python = try #require(Jose2026.python, "needs Fixtures/interop/.venv-jose2026 (jose2026-setup.sh)")
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let payloadPath = try Self.write(#"{"sub":"from-jwcrypto"}"#, "payload", in: directory)
        let setPath = directory.appendingPathComponent("set.json").path
        let tokenPath = directory.appendingPathComponent("token").path
        let made = try await Tool.run(python, [Jose2026.script, "makeset", setPath, tokenPath, payloadPath])
        try #require(made.status == 0, "jwcrypto makeset: \(made.stderr)")
        let set = try JWKSet(jsonBytes: Fixtures.bytes(URL(fileURLWithPath: setPath)))
        #expect(set.keys.compactMap(\.keyID).sorted() == ["ed-jwcrypto", "pq-jwcrypto"])
        #expect(set.keys.first { $0.keyID == "pq-jwcrypto" }?.keyType == .mlDSA(.mlDSA44))
        #expect(set.skipped.map(\.keyID) == ["future-jwcrypto"])
        let token = try CompactJWS(String(decoding: Fixtures.bytes(URL(fileURLWithPath: tokenPath)), as: UTF8.self))
        #expect(token.header.algorithmName == "Ed25519")
        #expect(try token.verify(with: set).keyID == "ed-jwcrypto")
        // A token naming the unknown-kty key is refused with its own code, the set still usable.
        let signer = try JWK.generate(.ed25519)
        let named = try CompactJWS(CompactJWS.sign(payload: "{}", header: ["kid": "future-jwcrypto"], key: signer, algorithm: .ed25519))
        expectCode(.unsupportedKeyType) { try named.verify(with: set) }
    }
}
