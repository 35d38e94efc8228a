import Foundation
import Testing

/// `jwt-inspect --help`, `sign --help`, `key --help` and `key --table` name the 2026 identifiers:
/// Ed25519 (RFC 9864), ML-DSA-44/65/87 and kty AKP (RFC 9964).
@Suite("jwt-inspect: the new identifiers in help and key tables")
struct CLINewIdentifiersTests {
    @Test("--help, sign --help and key --help name Ed25519, ML-DSA-44/65/87 and AKP")
    func help() async throws {
        let main = try await CLI.run(["--help"])
        #expect(main.status == 0)
        for name in ["Ed25519", "ML-DSA-44/65/87", "AKP", "RFC 9864", "RFC 9964", "unsupported_key_type", "algorithm_unavailable"] {
            #expect(main.stdout.contains(name), "--help lacks \(name)")
        }
        let sign = try await CLI.run(["sign", "--help"])
        #expect(sign.stdout.contains("Ed25519 (RFC 9864)") && sign.stdout.contains("ML-DSA-44/65/87"), "\(sign.stdout)")
        let key = try await CLI.run(["key", "--help"])
        #expect(key.stdout.contains("--kty AKP --alg ML-DSA-44|ML-DSA-65|ML-DSA-87"), "\(key.stdout)")
        #expect(key.stdout.contains("AKP") && key.stdout.contains("Ed25519 (RFC 9864)"))
        let bash = try await CLI.run(["completions", "bash"])
        for name in ["Ed25519", "ML-DSA-44", "ML-DSA-65", "ML-DSA-87", "AKP"] { #expect(bash.stdout.contains(name), "completion lacks \(name)") }
    }

    @Test("key --table lists AKP ML-DSA keys with their RFC 7638-style thumbprint, Ed25519 algs, and skips unknown types with the reason")
    func table() async throws {
        let vectors = CLI.repository.appendingPathComponent("Tests/JOSETests/Fixtures/interop/vectors_2026.json")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: vectors)) as? [String: Any])
        let entries = try #require(root["mldsa"] as? [[String: Any]])
        var keys: [[String: Any]] = try entries.map { entry in
            var jwk = try #require(entry["jwk"] as? [String: Any])
            jwk["priv"] = nil
            return jwk
        }
        keys.append(["kty": "PQX", "kid": "future-1"])
        keys.append(["kty": "AKP", "alg": "SLH-DSA-SHA2-128s", "pub": "AAAA", "kid": "slh-1"])
        var ed = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: CLI.repository.appendingPathComponent("Keys/ed25519.pub.jwk"))) as? [String: Any])
        ed["alg"] = "Ed25519"
        keys.append(ed)
        let directory = try External.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("set.json")
        try JSONSerialization.data(withJSONObject: ["keys": keys]).write(to: path)
        let run = try await CLI.run(["key", "--table", "--key", path.path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        for entry in entries {
            let alg = try #require(entry["alg"] as? String), thumbprint = try #require(entry["thumbprint"] as? String)
            #expect(lines.contains { $0.contains("AKP \(alg)") && $0.contains(alg.lowercased()) && $0.hasSuffix(thumbprint) }, "\(alg): \(run.stdout)")
        }
        #expect(lines.contains { $0.contains("OKP Ed25519") && $0.contains(" Ed25519 ") }, "\(run.stdout)")
        #expect(lines.contains { $0.contains("future-1") && $0.contains("skipped") })
        #expect(lines.contains { $0.hasPrefix("key #3 skipped: unsupported_key:") && $0.contains("PQX") }, "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("key #4 skipped: unsupported_key:") && $0.contains("SLH-DSA-SHA2-128s") }, "\(run.stdout)")
    }
}
