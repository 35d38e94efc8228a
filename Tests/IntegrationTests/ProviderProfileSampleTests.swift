import Foundation
import JOSE
import OIDC
import OIDCNetworking
import TestProcesses
import Testing

/// The samples' provider-profile options against the scripted providers (Tests/Support/profile_provider.py).
@Suite(
    "Samples with provider profiles against scripted providers", .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct ProviderProfileSampleTests {
    static let redirect = "http://127.0.0.1:1/callback"
    static let keys = Provider.repository.appendingPathComponent("Keys")

    func withProvider(_ profile: String, _ body: (ScriptedProfileProvider) async throws -> Void) async throws {
        let provider = try await ScriptedProfileProvider(profile)
        defer { provider.stop() }
        try await body(provider)
    }

    /// sample-authorize-url's login, then the browser's visit: (code, verifier, nonce).
    func authorize(_ issuer: String, profile: String, user: String, scope: String = "openid email", extra: [String] = []) async throws -> (
        String, String, String
    ) {
        let result = try await SampleRunner.run(
            "sample-authorize-url",
            [
                "--issuer", issuer, "--profile", profile, "--client-id", "app",
                "--redirect-uri", Self.redirect, "--scope", scope,
                "--param", "login_hint=\(user)",
            ] + extra)
        try #require(result.status == 0, "\(result.error)")
        let object = try JSONParser.parseObject(Array(result.output.utf8), what: "output")
        let urlText = try #require(object["url"]?.stringValue)
        let url = try #require(URL(string: urlText))
        let answer = try await URLSessionTransport().send(TransportRequest(url: url, followsRedirects: false))
        let text = answer.status == 302 ? answer.headers["Location"] ?? "" : String(decoding: answer.body, as: UTF8.self)
        // the code from the redirect's query, or from the form_post page's hidden input
        let found = text.range(of: #"code(=|" value=")[A-Za-z0-9_-]+"#, options: .regularExpression).map {
            String(text[$0]).replacingOccurrences(of: #"^code(=|" value=")"#, with: "", options: .regularExpression)
        }
        let code = try #require(found, "no code in the authorization answer")
        let verifier = try #require(object["code_verifier"]?.stringValue)
        let nonce = try #require(object["nonce"]?.stringValue)
        return (code, verifier, nonce)
    }

    func exchange(_ issuer: String, _ login: (String, String, String), _ options: [String]) async throws -> SampleRunner.Result {
        try await SampleRunner.run(
            "sample-exchange-code",
            [
                "--issuer", issuer, "--client-id", "app", "--redirect-uri", Self.redirect,
                "--code", login.0, "--code-verifier", login.1, "--nonce", login.2,
            ] + options)
    }

    @Test("sample-exchange-code --profile auth0 (scope openid profile email): the ISO 8601 updated_at in the ID Token and UserInfo; exit 0")
    func exchangeAuth0() async throws {
        try await withProvider("auth0") { idp in
            let issuer = idp.base + "/"
            let login = try await authorize(issuer, profile: "auth0", user: "alice", scope: "openid profile email")
            let run = try await exchange(issuer, login, ["--client-secret", "app-secret", "--profile", "auth0"])
            #expect(run.status == 0, "\(run.error)")
            let output = try JSONParser.parseObject(Array(run.output.utf8), what: "output")
            #expect(output["id_token_claims"]?.objectValue?["updated_at"]?.stringValue == "2024-05-01T10:20:30.123Z")
            #expect(output["userinfo"]?.objectValue?["updated_at"]?.stringValue == "2024-05-01T10:20:30.123Z")
            #expect(output["userinfo"]?.objectValue?["sub"] == output["id_token_claims"]?.objectValue?["sub"])
            // Without the profile: refused, named, exit 1.
            let plain = try await exchange(
                issuer, try await authorize(issuer, profile: "auth0", user: "alice", scope: "openid profile email"),
                ["--client-secret", "app-secret"])
            #expect(plain.status == 1 && plain.error.contains("claim_type_mismatch"), "\(plain.error)")
        }
    }

    @Test("sample-authorize-url: a discovery refusal exits 1 with its code; --profile entra accepts the template; --audience is sent")
    func authorizeURL() async throws {
        try await withProvider("entra") { idp in
            let common = ["--issuer", idp.base + "/common/v2.0", "--client-id", "app", "--redirect-uri", Self.redirect]
            let refused = try await SampleRunner.run("sample-authorize-url", common)
            #expect(refused.status == 1 && refused.error.contains("discovery_issuer_mismatch"), "\(refused.error)")
            let accepted = try await SampleRunner.run("sample-authorize-url", common + ["--profile", "entra", "--audience", "api://orders"])
            #expect(accepted.status == 0, "\(accepted.error)")
            #expect(
                accepted.output.contains("audience=api:%2F%2Forders") || accepted.output.contains("audience=api%3A%2F%2Forders"),
                "\(accepted.output)")
            await #expect(try SampleRunner.run("sample-authorize-url", common + ["--profile", "azure"]).status == 2)
        }
    }

    @Test("sample-exchange-code --profile entra --tenant: a listed tenant logs in, another is refused with tenant_not_allowed")
    func exchangeEntra() async throws {
        try await withProvider("entra") { idp in
            let issuer = idp.base + "/common/v2.0"
            let ok = try await exchange(
                issuer, try await authorize(issuer, profile: "entra", user: "alice@contoso"),
                ["--client-secret", "app-secret", "--profile", "entra", "--tenant", ProviderProfileTests.contoso])
            #expect(ok.status == 0, "\(ok.error)")
            #expect(ok.output.contains(ProviderProfileTests.contoso))
            let refused = try await exchange(
                issuer, try await authorize(issuer, profile: "entra", user: "bob@fabrikam"),
                ["--client-secret", "app-secret", "--profile", "entra", "--tenant", ProviderProfileTests.contoso])
            #expect(refused.status == 1 && refused.error.contains("tenant_not_allowed"), "\(refused.error)")
            await #expect(try exchange(issuer, ("c", "v", "n"), ["--client-secret", "s", "--tenant", "x"]).status == 2)  // --tenant without --profile entra
        }
    }

    @Test("sample-exchange-code --profile google --hosted-domain: hd on the list logs in, another is refused")
    func exchangeGoogle() async throws {
        try await withProvider("google") { idp in
            let options = ["--client-secret", "app-secret", "--profile", "google", "--hosted-domain", "example.com"]
            let ok = try await exchange(idp.base, try await authorize(idp.base, profile: "google", user: "alice@example.com"), options)
            #expect(ok.status == 0, "\(ok.error)")
            let refused = try await exchange(idp.base, try await authorize(idp.base, profile: "google", user: "eve@other.example"), options)
            #expect(refused.status == 1 && refused.error.contains("hosted_domain_not_allowed"), "\(refused.error)")
        }
    }

    @Test("sample-exchange-code --profile apple --team-id --key-id --client-key: the ES256 client_secret is accepted")
    func exchangeApple() async throws {
        try await withProvider("apple") { idp in
            let login = try await authorize(idp.base, profile: "apple", user: "alice@privaterelay", extra: ["--param", "response_mode=form_post"])
            let ok = try await exchange(
                idp.base, login,
                [
                    "--profile", "apple", "--team-id", "TEAM123ABC", "--key-id", "KEY123ABCD",
                    "--client-key", Self.keys.appendingPathComponent("p256.pem").path,
                ])
            #expect(ok.status == 0, "\(ok.error)")
            #expect(ok.output.contains("\"email_verified\":\"true\"") || ok.output.contains("\"email_verified\": \"true\""), "\(ok.output)")
            let again = try await authorize(idp.base, profile: "apple", user: "alice@privaterelay", extra: ["--param", "response_mode=form_post"])
            let wrongTeam = try await exchange(
                idp.base, again,
                [
                    "--profile", "apple", "--team-id", "OTHERTEAM1", "--key-id", "KEY123ABCD",
                    "--client-key", Self.keys.appendingPathComponent("p256.pem").path,
                ])
            #expect(wrongTeam.status == 1 && wrongTeam.error.contains("invalid_client"), "\(wrongTeam.error)")
        }
    }

    @Test("sample-resource-server --profile keycloak --allowed-client: client_id is azp; foreign azp and aud refused")
    func resourceServerKeycloak() async throws {
        try await withProvider("keycloak") { idp in
            let issuer = idp.base + "/realms/demo"
            func token(_ user: String) async throws -> String {
                let login = try await authorize(issuer, profile: "keycloak", user: user)
                let saved = FileManager.default.temporaryDirectory.appendingPathComponent("kc-\(UUID().uuidString).json")
                defer { try? FileManager.default.removeItem(at: saved) }
                let result = try await exchange(issuer, login, ["--client-secret", "app-secret", "--profile", "keycloak", "--save-tokens", saved.path])
                try #require(result.status == 0, "\(result.error)")
                let object = try JSONParser.parseObject(Array(try Data(contentsOf: saved)), what: "tokens")
                return try #require(object["access_token"]?.stringValue)
            }
            func serve(_ token: String, _ options: [String]) async throws -> (Int32, String, String) {
                let child = try await ChildProcess.run(
                    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                        .appendingPathComponent("sample-resource-server"), ["--issuer", issuer, "--audience", "orders-api"] + options,
                    stdin: Data(token.utf8))
                return (child.status, child.output, child.errors)
            }
            let alice = try await token("alice")
            let (status, output, error) = try await serve(alice, ["--profile", "keycloak", "--allowed-client", "app"])
            #expect(status == 0, "\(error)")
            #expect(output.contains("\"client_id\":\"app\"") || output.contains("\"client_id\": \"app\""), "\(output)")
            let strict = try await serve(alice, [])
            #expect(strict.0 == 1 && strict.2.contains("unexpected_token_type"), "\(strict.2)")
            let foreign = try await serve(try await token("foreign"), ["--profile", "keycloak", "--allowed-client", "app"])
            #expect(foreign.0 == 1 && foreign.2.contains("audience_mismatch"), "\(foreign.2)")
            await #expect(try serve(alice, ["--allowed-client", "app"]).0 == 2)
        }
    }
}
