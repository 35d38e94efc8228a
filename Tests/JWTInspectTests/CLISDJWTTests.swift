import Foundation
import Testing

/// `jwt-inspect sd-jwt issue|present` and `jwt-inspect --as sd-jwt`, run as a subprocess: the contract of issue 32.
@Suite("jwt-inspect SD-JWT")
struct CLISDJWTTests {
    static let claims = """
        {"iss": "https://issuer.example", "sub": "user-42", "given_name": "Erika", "family_name": "Mustermann",
         "address": {"street_address": "Heidestraße 17", "locality": "Köln"}, "nationalities": ["DE", "FR"]}
        """

    /// A temporary file with `text`, removed by the caller.
    static func file(_ text: String, _ name: String = "claims.json") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sdjwt-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    static func issue(_ extra: [String] = [], holder: Bool = true) async throws -> String {
        let claims = try file(Self.claims)
        defer { try? FileManager.default.removeItem(at: claims.deletingLastPathComponent()) }
        let result = try await CLI.run(
            [
                "sd-jwt", "issue", "--key", "Keys/p256.pem", "--claims", claims.path, "--sd", "/given_name", "--sd", "/family_name",
                "--sd", "/address", "--sd", "/address/locality", "--sd", "/nationalities/1", "--typ", "example+sd-jwt",
            ]
                + (holder ? ["--holder-key", "Keys/p384.pub.pem"] : []) + extra)
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("~\n"))
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func verify(_ token: String, _ extra: [String] = []) async throws -> CLI.Result {
        try await CLI.run(["--as", "sd-jwt", "--key", "Keys/p256.pub.pem", "--json"] + extra + [token])
    }

    @Test("issue prints JWT~d1~...~dn~; --as sd-jwt --json gives result, reason null and the processed claims")
    func issueAndVerify() async throws {
        let token = try await Self.issue(["--decoys", "4"])
        #expect(token.split(separator: "~").count == 1 + 5)
        let result = try await Self.verify(token, ["--iss", "https://issuer.example"])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.result == "valid")
        #expect(result.json?["reason"] is NSNull)
        let claims = try #require(result.json?["claims"] as? [String: Any])
        #expect(claims["given_name"] as? String == "Erika")
        #expect((claims["address"] as? [String: Any])?["locality"] as? String == "Köln")
        #expect(claims["nationalities"] as? [String] == ["DE", "FR"])
        #expect((claims["cnf"] as? [String: Any])?["jwk"] != nil)
        #expect(claims["_sd"] == nil && claims["_sd_alg"] == nil)
    }

    @Test("the human view lists each disclosure's name, value and digest, and the checks")
    func humanView() async throws {
        let token = try await Self.issue()
        let result = try await CLI.run(["--as", "sd-jwt", "--key", "Keys/p256.pub.pem", token])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("given_name = \"Erika\""))
        #expect(result.stdout.contains("[array element] = \"FR\""))
        #expect(result.stdout.contains("digest "))
        #expect(result.stdout.contains("at /address/locality"))
        #expect(result.stdout.contains("signature") && result.stdout.contains("VALID"))
    }

    @Test("present keeps only the disclosures asked for and their parents; a KB-JWT binds it to aud and nonce")
    func presentWithKeyBinding() async throws {
        let token = try await Self.issue()
        let presented = try await CLI.run(
            [
                "sd-jwt", "present", "--disclose", "/address/locality", "--holder-key", "Keys/p384.pem", "--aud", "https://verifier.example",
                "--nonce", "n-123", token,
            ])
        try #require(presented.status == 0, "\(presented.stderr)")
        let presentation = presented.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!presentation.hasSuffix("~"))
        #expect(presentation.split(separator: "~").count == 1 + 2 + 1)
        let result = try await Self.verify(presentation, ["--aud", "https://verifier.example", "--nonce", "n-123"])
        #expect(result.status == 0, "\(result.stdout)")
        let claims = try #require(result.json?["claims"] as? [String: Any])
        #expect(claims["given_name"] == nil)
        #expect((claims["address"] as? [String: Any])?["locality"] as? String == "Köln")
        let wrongNonce = try await Self.verify(presentation, ["--aud", "https://verifier.example", "--nonce", "other"])
        #expect(wrongNonce.status == 1 && wrongNonce.reason == "claim_mismatch")
        let wrongAudience = try await Self.verify(presentation, ["--aud", "https://other.example", "--nonce", "n-123"])
        #expect(wrongAudience.status == 1 && wrongAudience.reason == "audience_mismatch")
        let stale = try await Self.verify(
            presentation, ["--aud", "https://verifier.example", "--nonce", "n-123", "--now", String(Int(Date().timeIntervalSince1970) + 3600)])
        #expect(stale.status == 1 && stale.reason == "sd_key_binding_stale")
        // Without --aud/--nonce no key binding is required, with them a presentation without a KB-JWT is refused.
        let unbound = try await CLI.run(["sd-jwt", "present", "--disclose", "/given_name", token])
        let plain = unbound.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await Self.verify(plain).status == 0)
        let required = try await Self.verify(plain, ["--aud", "https://verifier.example", "--nonce", "n-123"])
        #expect(required.status == 1 && required.reason == "sd_key_binding_required")
    }

    @Test("refusals through the CLI exit 1 with their code")
    func refusals() async throws {
        let token = try await Self.issue()
        let parts = token.split(separator: "~", omittingEmptySubsequences: false).map(String.init)
        let jwt = parts[0]
        let disclosures = Array(parts[1..<(parts.count - 1)])
        func run(_ text: String, _ extra: [String] = []) async throws -> CLI.Result { try await Self.verify(text, extra) }
        let cases: [(String, String)] = [
            (jwt + "~" + disclosures[0] + "~" + disclosures[0] + "~", "sd_repeated_disclosure"),
            (jwt + "~" + "WyJzYWx0IiwgImdpdmVuX25hbWUiLCAiTWFsbG9yeSJd" + "~", "sd_unreferenced_disclosure"),
            (jwt + "~" + "not*base64" + "~", "sd_malformed_disclosure"),
            (jwt + "~" + "WyJzYWx0IiwgIl9zZCIsIDFd" + "~", "sd_reserved_claim_name"),
            (jwt, "malformed_token"),
        ]
        for (text, reason) in cases {
            let result = try await run(text)
            #expect(result.status == 1, "\(reason): \(result.stdout)")
            #expect(result.result == "invalid")
            #expect(result.reason == reason)
        }
        let wrongKey = try await CLI.run(["--as", "sd-jwt", "--key", "Keys/p384.pub.pem", "--json", token])
        #expect(wrongKey.status == 1)
        let wrongIssuer = try await run(token, ["--iss", "https://other.example"])
        #expect(wrongIssuer.status == 1 && wrongIssuer.reason == "issuer_mismatch")
    }

    @Test("usage errors exit 2: no key, --aud without --nonce, unknown subcommand, unknown flag")
    func usage() async throws {
        let token = try await Self.issue()
        #expect(try await CLI.run(["--as", "sd-jwt", token]).status == 2)
        #expect(try await CLI.run(["--as", "sd-jwt", "--key", "Keys/p256.pub.pem", "--aud", "x", token]).status == 2)
        #expect(try await CLI.run(["sd-jwt", "nothing"]).status == 2)
        #expect(try await CLI.run(["sd-jwt", "issue", "--key", "Keys/p256.pem"]).status == 2)
        #expect(try await CLI.run(["sd-jwt", "present", "--bogus", "x", token]).status == 2)
        #expect(try await CLI.run(["sd-jwt", "present", "--holder-key", "Keys/p384.pem", token]).status == 2)
        #expect(try await CLI.run(["sd-jwt", "present", "--disclose", "/nope", token]).status == 1)
    }

    @Test("--as sd-jwt-vc: typ dc+sd-jwt and vct required, iss never disclosed; exit codes as for sd-jwt")
    func verifiableCredential() async throws {
        let claims = try Self.file(#"{"iss": "https://issuer.example", "vct": "https://credentials.example/id", "given_name": "Erika"}"#)
        defer { try? FileManager.default.removeItem(at: claims.deletingLastPathComponent()) }
        func issue(_ extra: [String]) async throws -> String {
            let result = try await CLI.run(["sd-jwt", "issue", "--key", "Keys/p256.pem", "--claims", claims.path] + extra)
            try #require(result.status == 0, "\(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func check(_ token: String) async throws -> CLI.Result {
            try await CLI.run(["--as", "sd-jwt-vc", "--key", "Keys/p256.pub.pem", "--json", token])
        }
        let good = try await check(try await issue(["--typ", "dc+sd-jwt", "--sd", "/given_name"]))
        #expect(good.status == 0 && good.result == "valid", "\(good.stdout)")
        let legacy = try await check(try await issue(["--typ", "vc+sd-jwt"]))
        #expect(legacy.status == 0)
        let untyped = try await check(try await issue(["--sd", "/given_name"]))
        #expect(untyped.status == 1 && untyped.reason == "invalid_header")
        let hiddenIssuer = try await check(try await issue(["--typ", "dc+sd-jwt", "--sd", "/iss"]))
        #expect(hiddenIssuer.status == 1 && hiddenIssuer.reason == "sd_claim_not_disclosable")
        // The same token is a valid plain SD-JWT: the VC rules are what refuse it.
        let plain = try await CLI.run(["--as", "sd-jwt", "--key", "Keys/p256.pub.pem", "--json", try await issue(["--typ", "dc+sd-jwt", "--sd", "/iss"])])
        #expect(plain.status == 0)
    }
}
