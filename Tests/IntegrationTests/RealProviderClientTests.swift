import Foundation
import JOSE
import OIDC
import OIDCNetworking
import Testing

extension RealProviderTests {
    /// `OIDCClient` against django-oauth-toolkit: the whole login in two calls, refresh, UserInfo,
    /// revocation and RP-initiated logout.
    @Suite("OIDCClient against the real provider", .serialized)
    struct Client {
        static let postLogoutRedirectURI = URL(string: "http://127.0.0.1:8765/logged-out")!

        static func client(_ clientID: String = "client-basic", secret: String = "secret-basic") async throws -> OIDCClient {
            try await OIDCClient.discover(
                issuer: try #require(Provider.issuer),
                authentication: .clientSecretBasic(clientID: clientID, secret: secret),
                transport: Provider.transport)
        }

        /// Starts a login, stores the pending login as JSON (what a back end keeps between the two requests),
        /// logs alice in through the real login form, and returns the restored pending login and the redirect.
        static func login(_ client: OIDCClient) async throws -> (PendingLogin, URL) {
            var request = LoginRequest(redirectURI: Provider.redirectURI, scopes: ["openid", "profile", "email"])
            request.maxAge = 3600
            let started = try await client.startLogin(request)
            let stored = try JSONEncoder().encode(started)
            let redirect = try await Provider.login(started.url)
            return (try JSONDecoder().decode(PendingLogin.self, from: stored), redirect)
        }

        @Test("startLogin → real login → finishLogin with the full redirect URL; UserInfo's sub checked")
        func fullURL() async throws {
            let client = try await Self.client()
            let (pending, redirect) = try await Self.login(client)
            let login = try await client.finishLogin(pending, callback: .url(redirect))
            #expect(login.idToken.issuer == client.issuer)
            #expect(login.idToken.email == "alice@example.com")
            #expect(login.idToken.nonce == pending.nonce?.value)
            #expect(login.tokens.isBearer)
            let userInfo = try await client.userInfo(login.tokens)
            #expect(userInfo["sub"]?.stringValue == login.idToken.subject)
            // The code is single-use: finishing the same login again is the provider's invalid_grant.
            await expectOIDCError(.oauthError, oauth: .invalidGrant) { _ = try await client.finishLogin(pending, callback: .url(redirect)) }
        }

        @Test("finishLogin with only the query parameters, as a back end behind a TLS-terminating proxy sees them")
        func queryParameters() async throws {
            let client = try await Self.client("client-post", secret: "secret-post")
            let (pending, redirect) = try await Self.login(client)
            // What the back end sees behind the proxy: another scheme, host and port, the same query.
            let query = try #require(redirect.query)
            let seen = try #require(URL(string: "http://localhost:8080/callback?" + query))
            await expectOIDCError(.redirectURIMismatch) { _ = try await client.finishLogin(pending, callback: .url(seen)) }
            let login = try await client.finishLogin(pending, callback: .parameters(query))
            #expect(login.idToken.subject != nil)
            // Another login's state does not finish this one.
            let (other, _) = try await Self.login(client)
            await expectOIDCError(.stateMismatch) { _ = try await client.finishLogin(other, callback: .parameters(query)) }
        }

        @Test("refresh returns an ID Token: validated and checked against the login's (OpenID Connect Core §12.2)")
        func refresh() async throws {
            let client = try await Self.client()
            let (pending, redirect) = try await Self.login(client)
            let login = try await client.finishLogin(pending, callback: .url(redirect))
            let refreshed = try await client.refresh(login.tokens)
            let newIDToken = try #require(refreshed.idToken)
            #expect(newIDToken != login.tokens.idToken, "the provider returns a new ID Token on refresh")
            let parsed = try IDToken(newIDToken)
            #expect(parsed.subject == login.idToken.subject && parsed.issuer == login.idToken.issuer)
            #expect(refreshed.refreshToken != login.tokens.refreshToken, "the provider rotates refresh tokens")
            // Revocation through the client (django-oauth-toolkit lists its revocation endpoint only in RFC 8414 metadata).
            var metadata = client.metadata
            metadata.revocationEndpoint = try Provider.revocationEndpoint(metadata)
            let revoking = try OIDCClient(metadata: metadata, authentication: client.authentication, transport: client.transport)
            try await revoking.revoke(try #require(refreshed.refreshToken), hint: "refresh_token")
            await expectOIDCError(.oauthError, oauth: .invalidGrant) { _ = try await client.refresh(refreshed) }
        }

        @Test("RP-initiated logout: the provider's end_session_endpoint accepts the URL and redirects back with the state")
        func logout() async throws {
            let client = try await Self.client()
            let (pending, redirect) = try await Self.login(client)
            let login = try await client.finishLogin(pending, callback: .url(redirect))
            let url = try client.logoutURL(
                idTokenHint: login.tokens.idToken, postLogoutRedirectURI: Self.postLogoutRedirectURI,
                state: "bye-42")
            let endSession = try #require(client.metadata.endSessionEndpoint)
            #expect(url.absoluteString.hasPrefix(endSession.absoluteString + "?"))
            var request = TransportRequest(url: url)
            request.followsRedirects = false
            let response = try await Provider.transport.send(request)
            #expect(response.status == 302, "\(String(decoding: response.body.prefix(300), as: UTF8.self))")
            #expect(response.headers.values(for: "Location") == [Self.postLogoutRedirectURI.absoluteString + "?state=bye-42"])
            // The provider does check what it is given: a post-logout URI it does not know is refused.
            let unknown = try client.logoutURL(
                idTokenHint: login.tokens.idToken,
                postLogoutRedirectURI: URL(string: "http://127.0.0.1:8765/elsewhere"), state: nil)
            var refused = TransportRequest(url: unknown)
            refused.followsRedirects = false
            #expect(try await Provider.transport.send(refused).status == 400)
            // ... and so is an ID Token hint whose signature does not verify.
            var tampered = TransportRequest(
                url: try client.logoutURL(
                    idTokenHint: try #require(login.tokens.idToken) + "x",
                    postLogoutRedirectURI: Self.postLogoutRedirectURI, state: nil))
            tampered.followsRedirects = false
            #expect(try await Provider.transport.send(tampered).status == 400)
        }

        @Test("sample-authorize-url --issuer prints the same JSON object as with --authorization-endpoint")
        func sampleAuthorizeURL() async throws {
            let issuer = try #require(Provider.issuer)
            let metadata = try await Provider.metadata()
            let endpoint = try #require(metadata.authorizationEndpoint).absoluteString
            let common = ["--client-id", "client-basic", "--redirect-uri", Provider.redirectURI.absoluteString, "--scope", "openid profile"]
            func run(_ arguments: [String]) async throws -> JSONObject {
                let result = try await SampleRunner.run("sample-authorize-url", arguments + common)
                #expect(result.status == 0, "\(result.error)")
                return try JSONParser.parseObject(Array(result.output.utf8), what: "the sample's output")
            }
            let discovered = try await run(["--issuer", issuer])
            let given = try await run(["--authorization-endpoint", endpoint])
            #expect(discovered.map(\.name) == given.map(\.name))
            func withoutSecrets(_ object: JSONObject) throws -> String {
                var url = try #require(object["url"]?.stringValue)
                for name in ["state", "nonce"] {
                    url = url.replacingOccurrences(of: try #require(object[name]?.stringValue), with: "<\(name)>")
                }
                return url.replacingOccurrences(of: #"code_challenge=[^&]*"#, with: "code_challenge=<challenge>", options: .regularExpression)
            }
            #expect(try withoutSecrets(discovered) == withoutSecrets(given))
            #expect(try withoutSecrets(given).hasPrefix(endpoint + "?response_type=code&client_id=client-basic"))
        }
    }
}
