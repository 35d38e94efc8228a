import Foundation
import JOSE
import Testing

/// Tokens signed at test time with the keys in Keys/.
enum Tokens {
    static func key(_ name: String) throws -> JWK {
        let text = try String(contentsOf: CLI.repository.appendingPathComponent("Keys/\(name)"), encoding: .utf8)
        var key = name.hasSuffix(".pem") ? try JWK(pem: text) : try JWK(json: text)
        key.algorithm = nil
        return key
    }

    static let now: Int64 = 1_800_000_000

    static func claims(_ extra: [(String, JSONValue)] = []) -> JSONObject {
        var object: JSONObject = [
            "iss": "https://issuer.example", "sub": "alice", "aud": "client-1",
            "iat": .integer(now - 60), "exp": .integer(now + 600), "nonce": "n-123",
        ]
        for (name, value) in extra { object[name] = value }
        return object
    }

    static func sign(_ algorithm: JWSAlgorithm, key: String, claims: JSONObject = claims(), kid: String? = nil) throws -> String {
        var header: JSONObject = ["typ": "JWT"]
        if let kid { header["kid"] = .string(kid) }
        var signer = try self.key(key)
        signer.keyID = nil
        return try JWT.sign(claims, key: signer, algorithm: algorithm, header: header)
    }
}

@Suite("jwt-inspect as a subprocess")
struct CLICaseTests {
    static let algorithms: [(JWSAlgorithm, String, String)] = [
        (.rs256, "rsa2048.pem", "rsa2048.pub.pem"), (.rs384, "rsa2048.pem", "rsa2048.pkcs1.pem"), (.rs512, "rsa3072.pem", "rsa3072.pub.pem"),
        (.ps256, "rsa2048.pem", "rsa2048.pub.pem"), (.ps384, "rsa3072.pem", "rsa3072.pub.jwk"), (.ps512, "rsa3072.pem", "rsa3072.pem"),
        (.es256, "p256.pem", "p256.pub.pem"), (.es384, "p384.pem", "p384.pub.jwk"), (.es512, "p521.pem", "p521.pub.pem"),
        (.eddsa, "ed25519.pem", "ed25519.pub.pem"),
        (.hs256, "hmac.jwk", "hmac.jwk"), (.hs384, "hmac.jwk", "secret:hmac.key"), (.hs512, "hmac.jwk", "secret:hmac.key"),
    ]

    @Test("every algorithm verifies (exit 0, result valid)", arguments: algorithms.map { "\($0.0.rawValue)|\($0.1)|\($0.2)" })
    func everyAlgorithm(_ row: String) async throws {
        let parts = row.split(separator: "|").map(String.init)
        let token = try Tokens.sign(JWSAlgorithm(rawValue: parts[0])!, key: parts[1])
        // The .jwk files carry "alg", which restricts them: HS384/512 use the raw secret instead.
        let keyArguments = parts[2].hasPrefix("secret:") ? ["--secret-file", "Keys/" + parts[2].dropFirst(7)] : ["--key", "Keys/\(parts[2])"]
        let run = try await CLI.run(["--json", "--now", "\(Tokens.now)"] + keyArguments + [token])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.result == "valid")
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let arguments: [String]
        let token: @Sendable () throws -> String
        let status: Int32
        let reason: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "tampered payload", arguments: ["--key", "Keys/rsa2048.pub.pem"],
            token: {
                let parts = try Tokens.sign(.rs256, key: "rsa2048.pem").split(separator: ".")
                let other = Base64URL.encode(Array(#"{"sub":"mallory","exp":1900000000}"#.utf8))
                return "\(parts[0]).\(other).\(parts[2])"
            }, status: 1, reason: "invalid_signature"),
        Case(
            name: "wrong key", arguments: ["--key", "Keys/rsa3072.pub.pem"], token: { try Tokens.sign(.rs256, key: "rsa2048.pem") },
            status: 1, reason: "invalid_signature"),
        Case(
            name: "HS256 token against an RSA key", arguments: ["--key", "Keys/rsa2048.pub.pem"],
            token: { try Tokens.sign(.hs256, key: "hmac.jwk") }, status: 1, reason: "key_algorithm_mismatch"),
        Case(
            name: "RS256 token against an HMAC secret", arguments: ["--secret-file", "Keys/hmac.key"],
            token: { try Tokens.sign(.rs256, key: "rsa2048.pem") }, status: 1, reason: "key_algorithm_mismatch"),
        Case(
            name: "alg none", arguments: ["--key", "Keys/rsa2048.pub.pem"],
            token: {
                Base64URL.encode(#"{"alg":"none"}"#) + "." + Base64URL.encode(#"{"sub":"x"}"#) + "."
            }, status: 1, reason: "unsupported_algorithm"),
        Case(
            name: "alg not in --alg", arguments: ["--key", "Keys/rsa2048.pub.pem", "--alg", "PS256"],
            token: { try Tokens.sign(.rs256, key: "rsa2048.pem") }, status: 1, reason: "algorithm_not_allowed"),
        Case(
            name: "expired at --now", arguments: ["--key", "Keys/rsa2048.pub.pem", "--now", "\(Tokens.now + 3600)"],
            token: { try Tokens.sign(.rs256, key: "rsa2048.pem") }, status: 1, reason: "expired"),
        Case(
            name: "not yet valid", arguments: ["--key", "Keys/rsa2048.pub.pem"],
            token: { try Tokens.sign(.rs256, key: "rsa2048.pem", claims: Tokens.claims([("nbf", .integer(Tokens.now + 3600))])) },
            status: 1, reason: "not_yet_valid"),
        Case(
            name: "wrong aud", arguments: ["--key", "Keys/rsa2048.pub.pem", "--aud", "someone-else"],
            token: { try Tokens.sign(.rs256, key: "rsa2048.pem") }, status: 1, reason: "audience_mismatch"),
        Case(
            name: "right aud, iss and nonce",
            arguments: [
                "--key", "Keys/rsa2048.pub.pem", "--aud", "client-1", "--iss",
                "https://issuer.example", "--nonce", "n-123",
            ],
            token: { try Tokens.sign(.rs256, key: "rsa2048.pem") }, status: 0, reason: nil),
        Case(
            name: "wrong iss", arguments: ["--key", "Keys/rsa2048.pub.pem", "--iss", "https://evil.example"],
            token: { try Tokens.sign(.rs256, key: "rsa2048.pem") }, status: 1, reason: "issuer_mismatch"),
        Case(
            name: "wrong nonce", arguments: ["--key", "Keys/rsa2048.pub.pem", "--nonce", "n-999"],
            token: { try Tokens.sign(.rs256, key: "rsa2048.pem") }, status: 1, reason: "nonce_mismatch"),
        Case(
            name: "missing required claim", arguments: ["--key", "Keys/rsa2048.pub.pem", "--require", "acr"],
            token: { try Tokens.sign(.rs256, key: "rsa2048.pem") }, status: 1, reason: "missing_claim"),
        Case(
            name: "JWK Set, token with kid", arguments: ["--key", "Keys/jwks.json"],
            token: {
                try Tokens.sign(.rs256, key: "rsa2048.pem", kid: Tokens.key("rsa2048.pub.jwk").keyID ?? "")
            }, status: 0, reason: nil),
        Case(
            name: "JWK Set, no kid, one key fits", arguments: ["--key", "Keys/jwks.json"],
            token: { try Tokens.sign(.es256, key: "p256.pem") }, status: 0, reason: nil),
        Case(
            name: "JWK Set, no kid, several keys fit", arguments: ["--key", TwoRSAKeys.path],
            token: { try Tokens.sign(.rs256, key: "rsa2048.pem") }, status: 1, reason: "ambiguous_key"),
        Case(
            name: "JWK Set, unknown kid", arguments: ["--key", "Keys/jwks.json"],
            token: { try Tokens.sign(.rs256, key: "rsa2048.pem", kid: "nope") }, status: 1, reason: "key_not_found"),
        Case(name: "no key: decoded only", arguments: [], token: { try Tokens.sign(.rs256, key: "rsa2048.pem") }, status: 0, reason: nil),
        Case(
            name: "truncated token", arguments: ["--key", "Keys/rsa2048.pub.pem"],
            token: {
                String(try Tokens.sign(.rs256, key: "rsa2048.pem").prefix(60))
            }, status: 1, reason: "malformed_token"),
        Case(
            name: "whitespace inside", arguments: [],
            token: {
                let token = try Tokens.sign(.rs256, key: "rsa2048.pem")
                return String(token.prefix(20)) + " " + String(token.dropFirst(20))
            }, status: 1, reason: "malformed_token"),
    ]

    @Test("exit status and --json reason", arguments: cases)
    func table(_ item: Case) async throws {
        let token = try item.token()
        let run = try await CLI.run(["--json", "--now", "\(Tokens.now)"] + item.arguments, stdin: Data(("\n  " + token + "  \n").utf8))
        #expect(run.status == item.status, "stderr: \(run.stderr)")
        #expect(run.reason == item.reason, "stdout: \(run.stdout)")
    }

    /// The token is trimmed of the whitespace around it (space, tab, CR, LF, in any mix, from an argument
    /// or standard input) and refused with any of them inside; whitespace alone is no token.
    @Test("whitespace around the token is trimmed, inside it refused")
    func whitespaceAroundAndInside() async throws {
        let token = try Tokens.sign(.rs256, key: "rsa2048.pem")
        let verify = ["--json", "--now", "\(Tokens.now)", "--key", "Keys/rsa2048.pub.pem"]
        let around = " \t\r\n" + token + "\r\n\t "
        for input in [around, "\n" + token, token + "\r", token] {
            let run = try await CLI.run(verify, stdin: Data(input.utf8))
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.result == "valid", "stdout: \(run.stdout)")
        }
        let argument = try await CLI.run(verify + [around])
        #expect(argument.status == 0, "stderr: \(argument.stderr)")
        for inside in ["\t", "\r", "\n", " "] {
            let run = try await CLI.run(["--json", String(token.prefix(30)) + inside + String(token.dropFirst(30))])
            #expect(run.status == 1)
            #expect(run.reason == "malformed_token", "stdout: \(run.stdout)")
        }
        let blank = try await CLI.run(["--json"], stdin: Data(" \t\r\n".utf8))
        #expect(blank.status == 1)
        #expect(blank.reason == "malformed_token", "stdout: \(blank.stdout)")
    }

    @Test(
        "usage and setup errors exit 2",
        arguments: [
            ["--bogus"], ["--key"], ["--key", "/nonexistent/key.pem"], ["--key", "README.md"], ["--color", "purple"],
            ["--key", "Keys/rsa2048.pub.pem", "--secret-file", "Keys/hmac.key"], ["--leeway", "soon"],
            ["--key", "Keys/rsa2048.pub.pem", "--alg", "XX999"],
        ])
    func usageErrors(_ arguments: [String]) async throws {
        let token = try Tokens.sign(.rs256, key: "rsa2048.pem")
        let run = try await CLI.run([token] + arguments)
        #expect(run.status == 2, "stdout: \(run.stdout) stderr: \(run.stderr)")
        #expect(!run.stderr.isEmpty)
    }

    @Test("garbage, binary and 20 MB inputs exit 1 with one reason line")
    func hostileInput() async throws {
        var generator = SystemRandomNumberGenerator()
        let binary = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let huge = Data(repeating: UInt8(ascii: "A"), count: 20 << 20)
        for input in [Data("not a token at all".utf8), binary, huge, Data("a.b.c.d".utf8), Data("...".utf8)] {
            let run = try await CLI.run(["--key", "Keys/rsa2048.pub.pem"], stdin: input)
            #expect(run.status == 1)
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        }
    }

    @Test("the human view shows dates, verdict lines, and says when the signature was not verified")
    func humanView() async throws {
        let token = try Tokens.sign(.rs256, key: "rsa2048.pem")
        let verified = try await CLI.run(["--now", "\(Tokens.now)", "--key", "Keys/rsa2048.pub.pem", token])
        #expect(verified.stdout.contains("2027-01-15 08:10:00 UTC"))  // exp = now + 600
        #expect(verified.stdout.contains("expires in 10 min"))
        #expect(verified.stdout.contains("VALID"))
        #expect(!verified.stdout.contains("\u{1B}["))  // NO_COLOR
        let decoded = try await CLI.run(["--now", "\(Tokens.now)", token])
        #expect(decoded.stdout.contains("NOT verified"))
        let expired = try await CLI.run(["--now", "\(Tokens.now + 7200)", "--key", "Keys/rsa2048.pub.pem", token])
        #expect(expired.stdout.contains("expired 1 h ago"))
        #expect(expired.status == 1)
    }

    @Test("secrets never appear in output or errors")
    func noSecrets() async throws {
        let secret = try String(contentsOf: CLI.repository.appendingPathComponent("Keys/hmac.jwk"), encoding: .utf8)
        let k = try #require(try JSONSerialization.jsonObject(with: Data(secret.utf8)) as? [String: Any])["k"] as? String
        let token = try Tokens.sign(.hs256, key: "hmac.jwk")
        for arguments in [["--key", "Keys/hmac.jwk"], ["--key", "Keys/hmac.jwk", "--json"], ["--key", "Keys/hmac.jwk", "--aud", "x"]] {
            let run = try await CLI.run(arguments + [token + "x"])
            #expect(!run.stdout.contains(k ?? "-") && !run.stderr.contains(k ?? "-"))
        }
    }
}

/// A JWK Set with both RSA keys and no `alg` restriction: an RS256 token without `kid` fits both.
enum TwoRSAKeys {
    static let path: String = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-inspect-two-rsa-\(getpid()).json")
        let keys = ["rsa2048.pub.pem", "rsa3072.pub.pem"].compactMap { name -> String? in
            guard let key = try? Tokens.key(name) else { return nil }
            return key.publicJWKString
        }
        try? Data(("{\"keys\":[" + keys.joined(separator: ",") + "]}").utf8).write(to: url)
        return url.path
    }()
}
