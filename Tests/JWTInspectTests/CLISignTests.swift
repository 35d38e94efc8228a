import Foundation
import Testing

/// `jwt-inspect sign`, run as a subprocess: every algorithm round-trips through the
/// tool's own verification and through Debian's `jose` (EdDSA through Python's
/// `cryptography`: Debian's jose 11 has no OKP keys), and `jose`'s tokens verify here.
@Suite("jwt-inspect sign")
struct CLISignTests {
    /// algorithm, signing key, verifying key for jwt-inspect, JWK for jose ("-" none).
    static let rows: [(String, String, String, String)] = [
        ("ES256", "--key Keys/p256.pem", "--key Keys/p256.pub.pem", "p256.pub.jwk"),
        ("ES384", "--key Keys/p384.pem", "--key Keys/p384.pub.jwk", "p384.pub.jwk"),
        ("ES512", "--key Keys/p521.jwk", "--key Keys/p521.pub.pem", "p521.pub.jwk"),
        ("EdDSA", "--key Keys/ed25519.jwk", "--key Keys/ed25519.pub.pem", "-"),
        ("RS256", "--key Keys/rsa2048.pem", "--key Keys/rsa2048.pub.pem", "rsa2048.pub.jwk"),
        ("RS384", "--key Keys/rsa2048.pkcs1.pem", "--key Keys/rsa2048.cert.pem", "rsa2048.pub.jwk"),
        ("RS512", "--key Keys/rsa3072.pem", "--key Keys/rsa3072.pub.pem", "rsa3072.pub.jwk"),
        ("PS256", "--key Keys/rsa2048.pem", "--key Keys/rsa2048.pub.pem", "rsa2048.pub.jwk"),
        ("PS384", "--key Keys/rsa3072.pem", "--key Keys/rsa3072.pub.pem", "rsa3072.pub.jwk"),
        ("PS512", "--key Keys/rsa3072.pem", "--key Keys/rsa3072.pub.pem", "rsa3072.pub.jwk"),
        ("HS256", "--secret-file Keys/hmac.key", "--key Keys/hmac.jwk", "hmac.jwk"),
        ("HS384", "--secret-file Keys/hmac.key", "--secret-file Keys/hmac.key", "hmac.jwk"),
        ("HS512", "--secret-file Keys/hmac.key", "--secret-file Keys/hmac.key", "hmac.jwk"),
    ]

    static func words(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

    @Test("sign -> jwt-inspect and jose jws ver", arguments: rows.map { "\($0.0)|\($0.1)|\($0.2)|\($0.3)" })
    func roundTrip(_ row: String) async throws {
        let parts = row.split(separator: "|").map(String.init)
        let (alg, signing, verifying, joseKey) = (parts[0], parts[1], parts[2], parts[3])
        let signed = try await CLI.run(
            [
                "sign", "--alg", alg, "--claim", "sub=alice", "--claim", "aud=client-1",
                "--iat", "now", "--exp", "+15m",
            ] + Self.words(signing))
        try #require(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(signed.stdout == token + "\n", "one token and a newline")
        #expect(token.split(separator: ".").count == 3)

        let inspected = try await CLI.run(["--json", "--aud", "client-1", "--alg", alg] + Self.words(verifying) + [token])
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(inspected.result == "valid")
        let header = inspected.json?["header"] as? [String: Any]
        #expect(header?["alg"] as? String == alg)
        #expect(header?["typ"] as? String == "JWT")
        let claims = inspected.json?["payload"] as? [String: Any]
        #expect(claims?["sub"] as? String == "alice")
        let iat = claims?["iat"] as? Int, exp = claims?["exp"] as? Int
        #expect(iat != nil && exp == iat.map { $0 + 900 })

        // Tampered: the last signature character changed -> exit 1.
        var broken = Array(token)
        broken[broken.count - 2] = broken[broken.count - 2] == "A" ? "B" : "A"
        let tampered = try await CLI.run(["--json"] + Self.words(verifying) + [String(broken)])
        #expect(tampered.status == 1)

        if joseKey == "-" {
            try await verifyEdDSAWithCryptography(token)
        } else if let jose = External.jose {
            let directory = try External.scratch()
            defer { try? FileManager.default.removeItem(at: directory) }
            let jwk = try External.unrestrictedJWK(joseKey, in: directory)
            let verified = try await External.run(jose, ["jws", "ver", "-i", token, "-k", jwk, "-O-"])
            #expect(verified.status == 0, "jose jws ver: \(verified.stderr)")
            #expect(verified.stdout.contains("\"sub\":\"alice\""))
            await #expect(try External.run(jose, ["jws", "ver", "-i", String(broken), "-k", jwk]).status != 0)
        } else {
            Issue.record("Debian's jose is not installed (apt-get install jose)")
        }
    }

    func verifyEdDSAWithCryptography(_ token: String) async throws {
        guard External.hasCryptography, let python = External.python else { return }
        let script = """
            import base64, json, sys
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
            def b(s): return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
            h, p, s = sys.argv[1].split(".")
            x = json.load(open("Keys/ed25519.pub.jwk"))["x"]
            Ed25519PublicKey.from_public_bytes(b(x)).verify(b(s), (h + "." + p).encode())
            """
        let run = try await External.run(python, ["-c", script, token])
        #expect(run.status == 0, "cryptography refused the EdDSA token: \(run.stderr)")
    }

    /// jose's algorithm, its JWK, the key jwt-inspect verifies with.
    static let joseRows: [(String, String, String)] = [
        ("ES256", "p256.jwk", "--key Keys/p256.pub.pem"), ("ES384", "p384.jwk", "--key Keys/p384.pub.pem"),
        ("ES512", "p521.jwk", "--key Keys/p521.pub.jwk"), ("RS256", "rsa2048.jwk", "--key Keys/rsa2048.pub.pem"),
        ("PS256", "rsa2048.jwk", "--key Keys/rsa2048.pub.pem"), ("PS512", "rsa3072.jwk", "--key Keys/rsa3072.pub.pem"),
        ("RS384", "rsa3072.jwk", "--key Keys/rsa3072.pub.pem"), ("HS256", "hmac.jwk", "--secret-file Keys/hmac.key"),
        ("HS512", "hmac.jwk", "--secret-file Keys/hmac.key"),
    ]

    @Test("jose jws sig -> jwt-inspect", arguments: joseRows.map { "\($0.0)|\($0.1)|\($0.2)" })
    func fromJose(_ row: String) async throws {
        guard let jose = External.jose else { Issue.record("Debian's jose is not installed"); return }
        let parts = row.split(separator: "|").map(String.init)
        let directory = try External.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let jwk = try External.unrestrictedJWK(parts[1], in: directory)
        let payload = directory.appendingPathComponent("claims.json")
        try Data(#"{"sub":"from-jose","exp":4102444800}"#.utf8).write(to: payload)
        let signed = try await External.run(
            jose,
            [
                "jws", "sig", "-I", payload.path, "-k", jwk, "-c",
                "-s", #"{"protected":{"alg":"\#(parts[0])"}}"#,
            ])
        try #require(signed.status == 0, "jose jws sig: \(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try await CLI.run(["--json", "--alg", parts[0]] + Self.words(parts[2]) + [token])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.result == "valid")
        #expect((run.json?["payload"] as? [String: Any])?["sub"] as? String == "from-jose")
    }

    @Test(
        "default algorithm: the key's alg, else ES256/EdDSA/RS256/HS256, else its only one",
        arguments: [
            "Keys/p256.pem ES256", "Keys/p384.pem ES384", "Keys/p521.pem ES512", "Keys/ed25519.pem EdDSA",
            "Keys/rsa2048.pem RS256", "Keys/rsa3072.pem RS256", "Keys/rsa2048.pkcs1.pem RS256", "Keys/rsa2048.jwk RS256",
            "Keys/hmac.jwk HS256",
        ])
    func defaultAlgorithm(_ row: String) async throws {
        let parts = Self.words(row)
        let signed = try await CLI.run(["sign", "--key", parts[0], "--claim", "sub=x"])
        try #require(signed.status == 0, "\(signed.stderr)")
        let run = try await CLI.run(["--json", signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
        #expect((run.json?["header"] as? [String: Any])?["alg"] as? String == parts[1])
    }

    /// An RSA key without `alg` signed PS256, which the repository's own `Keys/rsa2048.pub.jwk`
    /// (`"alg": "RS256"`) does not verify in Debian's jose: RS256 is the default for RSA.
    @Test("sign with Keys/rsa2048.pem and no --alg: RS256, verified by jose with Keys/rsa2048.pub.jwk; PS256 only with --alg")
    func rsaDefaultVerifiesWithRepositoryJWK() async throws {
        let signed = try await CLI.run(["sign", "--key", "Keys/rsa2048.pem", "--claim", "sub=alice"])
        try #require(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let header = try await CLI.run(["--json", token]).json?["header"] as? [String: Any]
        #expect(header?["alg"] as? String == "RS256")
        guard let jose = External.jose else { Issue.record("Debian's jose is not installed (apt-get install jose)"); return }
        let verified = try await External.run(jose, ["jws", "ver", "-i", token, "-k", "Keys/rsa2048.pub.jwk", "-O-"])
        #expect(verified.status == 0, "jose jws ver: \(verified.stderr)")
        #expect(verified.stdout.contains("\"sub\":\"alice\""))
        let pss = try await CLI.run(["sign", "--alg", "PS256", "--key", "Keys/rsa2048.pem", "--claim", "sub=alice"])
        try #require(pss.status == 0, "\(pss.stderr)")
        let pssHeader = try await CLI.run(["--json", pss.stdout.trimmingCharacters(in: .whitespacesAndNewlines)]).json?["header"] as? [String: Any]
        #expect(pssHeader?["alg"] as? String == "PS256")
    }

    @Test("claims: JSON values, a file, standard input, times, header members")
    func claimsAndHeader() async throws {
        let directory = try External.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("claims.json")
        try Data(#"{"iss":"https://issuer.example","sub":"from-file","n":1}"#.utf8).write(to: file)
        let signed = try await CLI.run([
            "sign", "--key", "Keys/p256.pem", "--claims", file.path,
            "--claim", "sub=alice", "--claim", #"aud=["a","b"]"#, "--claim", "admin=true",
            "--claim", "n=5", "--claim", #"q="5""#, "--claim", "text=a=b",
            "--now", "1800000000", "--iat", "now", "--nbf", "-1h", "--exp", "+15m",
            "--kid", "k-1", "--typ", "at+jwt", "--header", "cty=JWT", "--header", "x5t#S256=abc",
        ])
        try #require(signed.status == 0, "\(signed.stderr)")
        let run = try await CLI.run(["--json", signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
        let claims = try #require(run.json?["payload"] as? [String: Any])
        #expect(claims["iss"] as? String == "https://issuer.example")
        #expect(claims["sub"] as? String == "alice")
        #expect(claims["aud"] as? [String] == ["a", "b"])
        #expect(claims["admin"] as? Bool == true)
        #expect(claims["n"] as? Int == 5)
        #expect(claims["q"] as? String == "5")
        #expect(claims["text"] as? String == "a=b")
        #expect(claims["iat"] as? Int == 1_800_000_000)
        #expect(claims["nbf"] as? Int == 1_800_000_000 - 3600)
        #expect(claims["exp"] as? Int == 1_800_000_000 + 900)
        let header = try #require(run.json?["header"] as? [String: Any])
        #expect(header["kid"] as? String == "k-1")
        #expect(header["typ"] as? String == "at+jwt")
        #expect(header["cty"] as? String == "JWT")
        #expect(header["x5t#S256"] as? String == "abc")

        let piped = try await CLI.run(
            [
                "sign", "--secret-file", "Keys/hmac.key", "--claims", "-", "--exp", "2030-01-01T00:00:00Z",
                "--nbf", "2029-12-31", "--iat", "1893456000", "--typ", "",
            ],
            stdin: Data(#"{"sub":"stdin"}"#.utf8))
        try #require(piped.status == 0, "\(piped.stderr)")
        let second = try await CLI.run(["--json", piped.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
        let pipedClaims = try #require(second.json?["payload"] as? [String: Any])
        #expect(pipedClaims["sub"] as? String == "stdin")
        #expect(pipedClaims["exp"] as? Int == 1_893_456_000)
        #expect(pipedClaims["nbf"] as? Int == 1_893_456_000 - 86400)
        #expect((second.json?["header"] as? [String: Any])?["typ"] == nil)
    }

    @Test(
        "refusals: exit 2 with a message naming the problem",
        arguments: [
            ("sign --key Keys/p256.pub.pem", "public key"),
            ("sign --claim sub=x", "exactly one of --key or --secret-file"),
            ("sign --key Keys/p256.pem --secret-file Keys/hmac.key", "exactly one of --key or --secret-file"),
            ("sign --key Keys/p256.pem --alg RS256", "cannot sign"),
            ("sign --key Keys/p256.pem --alg none", "not a supported JWS algorithm"),
            ("sign --key Keys/p256.pem --exp +15x", "--exp takes"),
            ("sign --key Keys/p256.pem --exp 99999999999999999999", "--exp takes"),
            ("sign --key Keys/p256.pem --nbf 2026-13-01", "--nbf takes"),
            ("sign --key Keys/p256.pem --claim novalue", "NAME=VALUE"),
            ("sign --key Keys/p256.pem --header alg=none", "--alg"),
            ("sign --key Keys/p256.pem --claims Keys/p256.pem", "not a JSON object"),
            ("sign --key Keys/missing.pem", "cannot open"),
            ("sign --key Keys/jwks.json", "JWK Set"),
            ("sign --key Keys/p256.pem --bogus", "unknown sign option"),
        ])
    func refusals(_ row: (String, String)) async throws {
        let run = try await CLI.run(Self.words(row.0))
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(row.1), "\(run.stderr)")
    }
}
