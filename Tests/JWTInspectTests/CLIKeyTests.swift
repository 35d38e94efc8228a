import Foundation
import Testing

/// `jwt-inspect key`, run as a subprocess: conversion, the JWK Set table, and (when
/// JOSE generates keys) generation, each checked by an independent implementation.
@Suite("jwt-inspect key")
struct CLIKeyTests {
    static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    static func keyFile(_ name: String) throws -> [String: Any] {
        let text = try String(contentsOf: CLI.repository.appendingPathComponent("Keys/\(name)"), encoding: .utf8)
        return try #require(object(text))
    }

    /// RFC 7638 computed here, from the JWK's required members (Python's hashlib, not the library).
    static func thumbprint(_ jwk: [String: Any]) async throws -> String? {
        guard let python = External.python else { return nil }
        let script = """
            import base64, hashlib, json, sys
            k = json.loads(sys.argv[1])
            req = {"EC": ["crv", "kty", "x", "y"], "RSA": ["e", "kty", "n"], "OKP": ["crv", "kty", "x"], "oct": ["k", "kty"]}[k["kty"]]
            text = json.dumps({m: k[m] for m in req}, separators=(",", ":"), sort_keys=True)
            print(base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode())
            """
        let data = try JSONSerialization.data(withJSONObject: jwk)
        let run = try await External.run(python, ["-c", script, String(decoding: data, as: UTF8.self)])
        return run.status == 0 ? run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }

    @Test("PEM -> public JWK: the members of Keys/*.pub.jwk", arguments: ["p256", "p384", "p521", "ed25519", "x25519", "rsa2048", "rsa3072"])
    func pemToPublicJWK(_ name: String) async throws {
        for source in ["\(name).pem", "\(name).pub.pem"] {
            let run = try await CLI.run(["key", "--key", "Keys/\(source)", "--public", "--format", "jwk"])
            try #require(run.status == 0, "\(run.stderr)")
            let made = try #require(Self.object(run.stdout))
            let expected = try Self.keyFile("\(name).pub.jwk")
            for member in ["kty", "crv", "x", "y", "n", "e"] {
                #expect(made[member] as? String == expected[member] as? String, "\(source): \(member)")
            }
            #expect(made["d"] == nil && made["p"] == nil, "no private member in a public JWK")
        }
    }

    @Test("--table: every key of Keys/jwks.json with the RFC 7638 thumbprint computed independently")
    func table() async throws {
        let run = try await CLI.run(["key", "--table", "--key", "Keys/jwks.json"])
        try #require(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let keys = try #require(try Self.keyFile("jwks.json")["keys"] as? [[String: Any]])
        #expect(lines.count == keys.count + 1)
        #expect(lines.first?.hasPrefix("#  kid") == true)
        for (index, key) in keys.enumerated() {
            let line = try #require(lines.first { $0.hasPrefix("\(index) ") })
            let cells = line.split(separator: " ").map(String.init)
            #expect(cells[1] == key["kid"] as? String)
            #expect(line.contains(" \(key["kty"] as? String ?? "?")"))
            #expect(cells.contains(key["alg"] as? String ?? "?"))
            if let expected = try await Self.thumbprint(key) { #expect(cells.last == expected, "key #\(index)") }
        }
    }

    @Test("--table lists skipped keys with the reason")
    func tableSkipped() async throws {
        let directory = try External.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("mixed.json")
        try Data(
            #"{"keys":[{"kty":"EC","crv":"P-256","kid":"bad","x":"AA","y":"AA"},{"kty":"XYZ","kid":"odd"},"text",{"kty":"oct","kid":"h","k":"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}]}"#
                .utf8
        ).write(to: file)
        let run = try await CLI.run(["key", "--table", "--key", file.path])
        try #require(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("0  bad") && $0.contains("skipped") })
        #expect(lines.contains { $0.hasPrefix("1  odd") && $0.contains("skipped") })
        #expect(lines.contains { $0.hasPrefix("2  -") && $0.contains("skipped") })
        #expect(lines.contains { $0.hasPrefix("3  h") && $0.contains("oct 192") })
        #expect(lines.contains { $0.hasPrefix("key #0 skipped: invalid_key") })
        #expect(lines.contains { $0.hasPrefix("key #1 skipped: unsupported_key") })
        #expect(lines.contains { $0.hasPrefix("key #2 skipped:") && $0.contains("not a JSON object") })
    }

    @Test(
        "refusals: exit 2 naming the problem",
        arguments: [
            ("key", "one of --kty"), ("key --kty EC --key Keys/p256.pem", "one of --kty"),
            ("key --table", "--table needs one of"), ("key --key Keys/p256.pem --format der", "jwk or pem"),
            ("key --key Keys/missing.pem", "cannot open"), ("key --bogus", "unknown key option"),
            ("key --table --jwks-url http://example.com/jwks", "https"),
        ])
    func refusals(_ row: (String, String)) async throws {
        let run = try await CLI.run(row.0.split(separator: " ").map(String.init))
        #expect(run.status == 2)
        #expect(run.stderr.contains(row.1), "\(run.stderr)")
    }
}
