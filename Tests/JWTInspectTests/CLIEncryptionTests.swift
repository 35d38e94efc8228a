import Foundation
import Testing

/// `jwt-inspect` and JWE: a JWE input shows its protected header, `--decrypt-key`
/// (JWK — oct too —, JWK Set or PEM; repeatable) decrypts it and inspects the nested
/// JWS, a refused or failed decryption exits 1, and `jwt-inspect encrypt` makes one.
@Suite("jwt-inspect: JWE (--decrypt-key, encrypt)")
struct CLIEncryptionTests {
    static func signed() async throws -> String {
        let run = try await CLI.run(["sign", "--key", "Keys/p256.pem", "--claim", "sub=alice", "--claim", "aud=client-1", "--iat", "now", "--exp", "+15m"])
        try #require(run.status == 0, "\(run.stderr)")
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func encrypt(_ token: String, _ arguments: [String]) async throws -> String {
        let run = try await CLI.run(["encrypt"] + arguments, stdin: Data(token.utf8))
        try #require(run.status == 0, "\(run.stderr)")
        let jwe = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(jwe.split(separator: ".", omittingEmptySubsequences: false).count == 5)
        return jwe
    }

    static func header(_ jwe: String) async throws -> [String: Any] {
        let run = try await CLI.run(["--json", jwe])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.result == "encrypted")
        return try #require((run.json?["encryption"] as? [String: Any])?["header"] as? [String: Any])
    }

    static func temporaryFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jwe-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url
    }

    static let oct256 = #"{"kty":"oct","k":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"}"#

    /// encrypt arguments, expected alg, expected enc, decryption key.
    static let rows: [(String, String, String, String)] = [
        ("--key Keys/rsa2048.pub.pem", "RSA-OAEP-256", "A256GCM", "Keys/rsa2048.pem"),
        ("--key Keys/rsa2048.pub.pem --alg RSA-OAEP --enc A128CBC-HS256", "RSA-OAEP", "A128CBC-HS256", "Keys/rsa2048.pkcs1.pem"),
        ("--key Keys/p256.pub.pem", "ECDH-ES", "A256GCM", "Keys/p256.pem"),
        ("--key Keys/p521.pub.pem --alg ECDH-ES+A256KW --enc A192GCM", "ECDH-ES+A256KW", "A192GCM", "Keys/p521.pem"),
        ("--key OCT", "A256KW", "A256GCM", "OCT"),
        ("--key OCT --alg dir", "dir", "A256GCM", "OCT"),
        ("--key OCT --alg A256GCMKW --enc A256CBC-HS512", "A256GCMKW", "A256CBC-HS512", "OCT"),
        ("--key Keys/x25519.pub.pem", "ECDH-ES", "A256GCM", "Keys/x25519.pem"),
        ("--key Keys/x25519.pub.pem --alg ECDH-ES+A128KW --enc A128GCM", "ECDH-ES+A128KW", "A128GCM", "Keys/x25519.pem"),
    ]

    @Test("encrypt, then inspect: header without a key, the nested JWS with --decrypt-key", arguments: 0..<9)
    func roundTrip(_ index: Int) async throws {
        let row = Self.rows[index]
        let oct = try Self.temporaryFile(Self.oct256)
        defer { try? FileManager.default.removeItem(at: oct) }
        func words(_ text: String) -> [String] { text.split(separator: " ").map { $0 == "OCT" ? oct.path : String($0) } }
        let token = try await Self.signed()
        let jwe = try await Self.encrypt(token, words(row.0))
        let header = try await Self.header(jwe)
        #expect(header["alg"] as? String == row.1)
        #expect(header["enc"] as? String == row.2)
        #expect(header["cty"] as? String == "JWT")

        let decryptKey = row.3 == "OCT" ? oct.path : row.3
        let run = try await CLI.run(["--json", "--decrypt-key", decryptKey, "--key", "Keys/p256.pub.pem", "--aud", "client-1", jwe])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.result == "valid")
        #expect((run.json?["payload"] as? [String: Any])?["sub"] as? String == "alice")
        #expect((run.json?["header"] as? [String: Any])?["alg"] as? String == "ES256")
        let encryption = try #require(run.json?["encryption"] as? [String: Any])
        #expect(encryption["decrypted"] as? Bool == true)
        #expect((encryption["header"] as? [String: Any])?["alg"] as? String == row.1)

        // The nested JWS is still checked: a wrong verification key fails the run.
        let wrong = try await CLI.run(["--json", "--decrypt-key", decryptKey, "--key", "Keys/p384.pub.pem", jwe])
        #expect(wrong.status == 1)
    }

    @Test("--decrypt-key is repeatable and takes JWK Sets; the human view names the layer")
    func keySets() async throws {
        let jwe = try await Self.encrypt(try Self.signed(), ["--key", "Keys/p256.pub.pem"])
        // The wrong key first, then the right one.
        let repeated = try await CLI.run(["--decrypt-key", "Keys/p384.pem", "--decrypt-key", "Keys/rsa2048.pem", "--decrypt-key", "Keys/p256.pem", jwe])
        #expect(repeated.status == 0, "\(repeated.stderr)")
        #expect(repeated.stdout.contains("Encryption header"))
        #expect(repeated.stdout.contains("decryption"))
        #expect(repeated.stdout.contains("\"sub\": \"alice\""))
        // A JWK Set holding the key (as a private JWK without use/alg).
        let p256 = try String(contentsOf: CLI.repository.appendingPathComponent("Keys/p256.jwk"), encoding: .utf8)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(p256.utf8)) as? [String: Any])
        for name in ["use", "alg", "key_ops"] { object[name] = nil }
        let set = try Self.temporaryFile(String(decoding: try JSONSerialization.data(withJSONObject: ["keys": [object]]), as: UTF8.self))
        defer { try? FileManager.default.removeItem(at: set) }
        let fromSet = try await CLI.run(["--json", "--decrypt-key", set.path, jwe])
        #expect(fromSet.status == 0, "\(fromSet.stderr)")
        #expect(fromSet.result == "decoded")

        let plain = try await CLI.run([jwe])
        #expect(plain.status == 0)
        #expect(plain.stdout.contains("ENCRYPTED"))
    }

    @Test("a failed or refused decryption exits 1 like a failed check")
    func failures() async throws {
        let jwe = try await Self.encrypt(try Self.signed(), ["--key", "Keys/rsa2048.pub.pem"])
        let wrong = try await CLI.run(["--json", "--decrypt-key", "Keys/rsa3072.pem", jwe])
        #expect(wrong.status == 1)
        #expect(wrong.result == "invalid")
        #expect(wrong.reason == "decryption_failed")
        #expect(wrong.stderr.contains("decryption check failed"))
        let mismatch = try await CLI.run(["--json", "--decrypt-key", "Keys/p256.pem", jwe])
        #expect(mismatch.status == 1)
        // JOSE's one selection rule (JWEDecryptionKeys): a P-256 key never fits RSA-OAEP-256, so no key is tried.
        #expect(mismatch.reason == "key_not_found")

        // RSA1_5 is refused by design: the header shows, decryption exits 1.
        let header = Self.base64url(#"{"alg":"RSA1_5","enc":"A128CBC-HS256"}"#)
        let rsa15 = "\(header).AAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA"
        await #expect(try CLI.run([rsa15]).status == 0)
        let refused = try await CLI.run(["--json", "--decrypt-key", "Keys/rsa2048.pem", rsa15])
        #expect(refused.status == 1)
        #expect(refused.reason == "unsupported_algorithm")
        // zip is refused when parsing.
        let zip = "\(Self.base64url(#"{"alg":"dir","enc":"A128GCM","zip":"DEF"}"#))..AAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA"
        let zipped = try await CLI.run(["--json", zip])
        #expect(zipped.status == 1)
        #expect(zipped.reason == "unsupported_algorithm")
    }

    @Test(
        "encrypt: usage and key errors exit 2",
        arguments: [
            "encrypt", "encrypt --key Keys/p256.pub.pem --alg RSA1_5", "encrypt --key Keys/p256.pub.pem --enc A128CTR",
            "encrypt --key Keys/ed25519.pub.pem", "encrypt --key Keys/p256.pub.pem --alg RSA-OAEP-256", "encrypt --key Keys/missing.pem",
        ])
    func encryptRefusals(_ line: String) async throws {
        let run = try await CLI.run(line.split(separator: " ").map(String.init), stdin: Data("x".utf8))
        #expect(run.status == 2, "\(run.stdout) \(run.stderr)")
    }

    @Test("an X25519 PEM key (openssl genpkey -algorithm X25519) converts to PEM unchanged and never signs")
    func x25519PEM() async throws {
        let text = try String(contentsOf: CLI.repository.appendingPathComponent("Keys/x25519.pem"), encoding: .utf8)
        let converted = try await CLI.run(["key", "--key", "Keys/x25519.pem", "--format", "pem"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stdout == text)
        let unsigned = try await CLI.run(["sign", "--key", "Keys/x25519.pem", "--claim", "sub=alice"])
        #expect(unsigned.status == 2 && unsigned.stdout.isEmpty, "\(unsigned.stdout) \(unsigned.stderr)")
        let forced = try await CLI.run(["sign", "--key", "Keys/x25519.pem", "--alg", "EdDSA", "--claim", "sub=alice"])
        #expect(forced.status == 2 && forced.stdout.isEmpty, "\(forced.stdout) \(forced.stderr)")
        #expect(forced.stderr.contains("X25519"), "\(forced.stderr)")
    }

    @Test("encrypt: a non-JWS plaintext gets no cty")
    func plainPayload() async throws {
        let jwe = try await Self.encrypt("hello", ["--key", "Keys/p256.pub.pem"])
        await #expect(try Self.header(jwe)["cty"] == nil)
    }

    static func base64url(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
