import Foundation
import JOSE
import OIDC
import Testing

extension GlewlwydSerial {
    /// Dynamic registration at glewlwyd's `/register` (RFC 7591, with an initial access token: an access token with
    /// the `client.register` scope, Tests/Glewlwyd/configure.py), a login with the registered client, and RFC 7592
    /// management of it; and `sample-register` against the same endpoint.
    @Suite("glewlwyd dynamic registration", .enabled(if: Glewlwyd.isRunning, "glewlwyd is not running"))
    struct GlewlwydRegistrationTests {
        static func initialAccessToken() async throws -> String {
            try await Glewlwyd.client("SECRET").clientCredentials(scope: "client.register").accessToken
        }

        @Test func registerThenLogInThenManage() async throws {
            var metadata = ClientMetadata(redirectURIs: [try Glewlwyd.redirectURI], extra: JSONObject([("client_confidential", .bool(true))]))
            metadata.clientName = "registered by the toolkit"
            metadata.tokenEndpointAuthMethod = "client_secret_basic"
            metadata.contacts = ["ops@app.example"]
            let (client, registration) = try await OIDCClient.register(
                issuer: try #require(Glewlwyd.issuer), metadata: metadata,
                initialAccessToken: try await Self.initialAccessToken(),
                transport: Glewlwyd.transport)
            #expect(client.clientID == registration.clientID)
            #expect(registration.clientSecret != nil)
            #expect(!"\(client) \(registration)".contains(try #require(registration.clientSecret)))

            // alice logs in with the client that registered itself.
            let pending = try await client.startLogin(LoginRequest(redirectURI: try Glewlwyd.redirectURI, scopes: ["openid"]))
            let (line, status) = try await Glewlwyd.runScript("login.py", ["--authorize-url", pending.url.absoluteString])
            let redirect = try #require(URL(string: line), "login.py printed no redirect URL (status \(status))")
            let login = try await client.finishLogin(pending, callback: .url(redirect))
            #expect(try login.idToken.claims.audience == [registration.clientID])

            // RFC 7592: read, update, delete; then the registration access token is no longer accepted.
            let registrar = try ClientRegistrar(metadata: client.metadata, transport: Glewlwyd.transport)
            let read = try await registrar.read(registration)
            #expect(read.clientID == registration.clientID)
            #expect(read.metadata.clientName == "registered by the toolkit")
            metadata.clientName = "renamed"
            let updated = try await registrar.update(read, to: metadata)
            #expect(updated.metadata.clientName == "renamed")
            try await registrar.delete(updated)
            await expectOIDCError(.registrationRefused) { _ = try await registrar.read(updated) }
        }

        @Test func registrationWithoutTheInitialAccessTokenIsRefused() async throws {
            await expectOIDCError(.registrationRefused, status: 401) {
                _ = try await OIDCClient.register(
                    issuer: try #require(Glewlwyd.issuer), metadata: ClientMetadata(redirectURIs: [try Glewlwyd.redirectURI]),
                    transport: Glewlwyd.transport)
            }
        }

        @Test func sampleRegisterPrintsTheAnswerRedacted() async throws {
            let token = try await Self.initialAccessToken()
            let issuer = try #require(Glewlwyd.issuer)
            let key = try JWK.generate(.ec(.p256))
            let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("sample-register-\(UUID().uuidString).jwk")
            try key.privateJWKString().write(to: keyFile, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: keyFile) }

            let result = try await SampleRunner.run(
                "sample-register",
                [
                    "--issuer", issuer, "--redirect-uri", try Glewlwyd.redirectURI.absoluteString,
                    "--initial-access-token", token, "--jwks", keyFile.path, "--auth-method", "client_secret_basic",
                    "--metadata", #"{"client_confidential":true,"client_name":"sample"}"#,
                ])
            #expect(result.status == 0, "\(result.error)")
            let answer = try JSONParser.parseObject(Array(result.output.utf8), what: "stdout")
            #expect(answer["client_secret"]?.stringValue == "<redacted>")
            #expect(answer["registration_access_token"]?.stringValue == "<redacted>")
            #expect(answer["client_name"]?.stringValue == "sample")
            #expect(!result.output.contains(token) && !result.error.contains(token))
            #expect(answer["jwks"]?.objectValue?["keys"]?.arrayValue?.first?.objectValue?["d"] == nil)

            let shown = try await SampleRunner.run(
                "sample-register",
                [
                    "--issuer", issuer, "--redirect-uri", try Glewlwyd.redirectURI.absoluteString,
                    "--initial-access-token", token, "--metadata", #"{"client_confidential":true}"#, "--auth-method", "client_secret_post",
                    "--show-secrets",
                ])
            #expect(shown.status == 0)
            let secret = try JSONParser.parseObject(Array(shown.output.utf8), what: "stdout")["client_secret"]?.stringValue
            #expect(secret != nil && secret != "<redacted>")

            let refused = try await SampleRunner.run(
                "sample-register",
                [
                    "--issuer", issuer, "--redirect-uri", "ftp://app.example/cb",
                    "--initial-access-token", token,
                ])
            #expect(refused.status == 1)
            #expect(refused.output.isEmpty)
            #expect(refused.error.hasPrefix("sample-register: invalid_redirect_uri: "), "\(refused.error)")

            let usage = try await SampleRunner.run("sample-register", ["--issuer", issuer])
            #expect(usage.status == 2)
            let noToken = try await SampleRunner.run("sample-register", ["--issuer", issuer, "--redirect-uri", try Glewlwyd.redirectURI.absoluteString])
            #expect(noToken.status == 1)
            #expect(noToken.error.hasPrefix("sample-register: registration_refused: "), "\(noToken.error)")
        }
    }
}

/// `sample-authorize-url --webfinger`: the query goes over https (loopback too, when `--allow-host` admits it),
/// refusals exit 1, usage errors 2.
@Suite struct SampleWebFingerTests {
    @Test func webFingerRefusalsAndUsage() async throws {
        let common = ["--client-id", "c", "--redirect-uri", "https://app.example/cb"]
        // Nothing listens for https on this port: the query (https, never http), admitted by name, fails, exit 1.
        let unreachable = try await SampleRunner.run("sample-authorize-url", ["--webfinger", "acct:alice@127.0.0.1:1", "--allow-host", "127.0.0.1:1"] + common)
        #expect(unreachable.status == 1, "\(unreachable.error)")
        #expect(unreachable.error.contains("webfinger_transport_failed"), "\(unreachable.error)")
        let http = try await SampleRunner.run("sample-authorize-url", ["--webfinger", "http://127.0.0.1:1/alice"] + common)
        #expect(http.status == 1 && http.error.contains("webfinger_invalid_identifier"), "\(http.error)")
        let both = try await SampleRunner.run("sample-authorize-url", ["--webfinger", "alice@example.com", "--issuer", "https://op.example"] + common)
        #expect(both.status == 2)
        let badHost = try await SampleRunner.run("sample-authorize-url", ["--webfinger", "alice@example.com", "--allow-host", "127.0.0.1"] + common)
        #expect(badHost.status == 2 && badHost.error.contains("--allow-host needs HOST:PORT"), "\(badHost.error)")
        let withoutWebFinger = try await SampleRunner.run("sample-authorize-url", ["--issuer", "https://op.example", "--allow-host", "127.0.0.1:1"] + common)
        #expect(withoutWebFinger.status == 2)
    }
}
