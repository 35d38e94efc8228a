import Foundation
import JOSE
import OIDC
import OIDCNetworking
import TestProcesses
import Testing

/// ProtectedResourceAccess with a real authorization server: Tests/Support/grant_server.py is the protected resource
/// (401 with `resource_metadata`, its RFC 9728 document naming glewlwyd), glewlwyd issues the token through the
/// authorization code flow with PKCE and `resource` (RFC 8707), alice logging in through Tests/Glewlwyd/login.py, or
/// client credentials. The client is registered beforehand (admin API) or dynamically (RFC 7591) at glewlwyd's "mcp"
/// plugin, whose registration asks no initial access token (Tests/Glewlwyd/configure.py).
@Suite(
    "ProtectedResourceAccess with glewlwyd: authorization code + PKCE + resource, registered or dynamic", .serialized,
    .enabled(if: Glewlwyd.isRunning || ProcessInfo.processInfo.environment["CI"] == "true"))
struct GlewlwydProtectedResourceAccessTests {
    /// A confidential client of glewlwyd allowed `resource` (its `resource` property), made through the admin API.
    static func makeClient(resource: String, redirectURI: URL) async throws -> ClientAuthentication {
        let base = try Glewlwyd.value("GLEWLWYD_BASE")
        let transport = Glewlwyd.transport
        let login = try await transport.send(
            TransportRequest(
                method: .post, url: try #require(URL(string: base + "/api/auth/")), headers: ["Content-Type": "application/json"],
                body: .bytes(Array(#"{"username":"admin","password":"password"}"#.utf8))))
        #expect(login.status == 200)
        let cookie = try #require(login.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
        let clientID = "pra-" + UUID().uuidString.prefix(8).lowercased()
        let secret = UUID().uuidString
        let body: JSONValue = [
            "client_id": .string(clientID), "name": .string(clientID), "enabled": true, "confidential": true,
            "password": .string(secret), "redirect_uri": [.string(redirectURI.absoluteString)],
            "authorization_type": ["code"], "scope": ["openid", "api.read"],
            "token_endpoint_auth_method": ["client_secret_basic"], "resource": [.string(resource)],
        ]
        let made = try await transport.send(
            TransportRequest(
                method: .post, url: try #require(URL(string: base + "/api/client/")),
                headers: ["Content-Type": "application/json", "Cookie": cookie], body: .bytes(Array(body.jsonString().utf8))))
        #expect(made.status == 200)
        return .clientSecretBasic(clientID: clientID, secret: secret)
    }

    /// The grant server's port (not 9454: ScriptedGrantServerTests runs beside this suite).
    static var port: String { ProcessInfo.processInfo.environment["GLEWLWYD_GRANT_SERVER_PORT"] ?? "9458" }
    /// The protected resource's URL.
    static var api: URL { get throws { try #require(URL(string: "http://127.0.0.1:\(port)/api")) } }

    /// Tests/Support/grant_server.py as the protected resource at `/api`, its RFC 9728 document naming `issuer`: the
    /// running child (the caller stops it), the resource's URL and its 401 without a token.
    static func startResource(issuer: String) async throws -> (StartedChild, URL, TransportResponse) {
        let child = try StartedChild(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", Provider.repository.appendingPathComponent("Tests/Support/grant_server.py").path, "--port", port,
                "--assertion-key", Provider.repository.appendingPathComponent("Keys/p256.pub.pem").path, "--resource-issuer", issuer,
            ])
        do {
            let line = try await child.firstLine(limit: 8)
            try #require(line == port, "the grant server did not start on \(port)")
            let api = try Self.api
            let refusal = try await Glewlwyd.transport.send(TransportRequest(url: api))
            #expect(refusal.status == 401)
            return (child, api, refusal)
        } catch {
            child.stop()
            throw error
        }
    }

    /// glewlwyd's "mcp" plugin, if the running glewlwyd has it and grants `resource` there (GLEWLWYD_MCP_RESOURCES);
    /// `nil` skips the test locally (a glewlwyd started before the plugin existed), and CI requires it.
    static func openRegistrationIssuer(for resource: URL) throws -> String? {
        let environment = ProcessInfo.processInfo.environment
        let resources = (environment["GLEWLWYD_MCP_RESOURCES"] ?? "").split(separator: ",").map(String.init)
        guard let issuer = environment["GLEWLWYD_MCP_ISSUER"], resources.contains(resource.absoluteString) else {
            try #require(
                environment["CI"] != "true",
                "GLEWLWYD_MCP_ISSUER is not set or GLEWLWYD_MCP_RESOURCES lacks \(resource) (Tests/Glewlwyd/configure.py's mcp plugin)")
            return nil
        }
        return issuer
    }

    /// The claims of glewlwyd's RFC 9068 access token and the audiences in its `aud`.
    static func claims(of accessToken: String) throws -> (JSONObject, [String]) {
        let parts = accessToken.split(separator: ".")
        try #require(parts.count == 3)
        let claims = try JSONParser.parseObject(try Base64URL.decode(String(parts[1])), what: "the access token's claims")
        let audience: [String]
        switch claims["aud"] {
        case .string(let one)?: audience = [one]
        case .array(let many)?: audience = many.compactMap { if case .string(let text) = $0 { text } else { nil } }
        default: audience = []
        }
        return (claims, audience)
    }

    /// The client glewlwyd's admin API knows as `clientID` (its JSON), or `nil` when it answers otherwise.
    static func adminClient(_ clientID: String) async throws -> JSONObject? {
        let base = try Glewlwyd.value("GLEWLWYD_BASE")
        let login = try await Glewlwyd.transport.send(
            TransportRequest(
                method: .post, url: try #require(URL(string: base + "/api/auth/")), headers: ["Content-Type": "application/json"],
                body: .bytes(Array(#"{"username":"admin","password":"password"}"#.utf8))))
        let cookie = try #require(login.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
        let answer = try await Glewlwyd.transport.send(
            TransportRequest(url: try #require(URL(string: base + "/api/client/" + clientID)), headers: ["Cookie": cookie]))
        guard answer.status == 200 else { return nil }
        return try JSONParser.parseObject(answer.body, what: "glewlwyd's client")
    }

    /// The authorization code grant, alice logging in and consenting through login.py.
    static var scriptedLogin: ProtectedResourceAccess.Configuration.Grant {
        get throws {
            .authorizationCode(redirectURI: try Glewlwyd.redirectURI) { url in
                let (line, status) = try await Glewlwyd.runScript("login.py", ["--authorize-url", url.absoluteString])
                let redirect = try #require(URL(string: line), "login.py printed no redirect URL (status \(status))")
                return .url(redirect)
            }
        }
    }

    /// The configuration every test here shares: `client`, `grant`, trusting only `issuer`, scope api.read, the
    /// resource's loopback host admitted by the fetch policy.
    static func configuration(
        client: ProtectedResourceAccess.Configuration.Client, grant: ProtectedResourceAccess.Configuration.Grant, issuer: String, api: URL
    ) throws -> ProtectedResourceAccess.Configuration {
        var configuration = ProtectedResourceAccess.Configuration(client: client, grant: grant, trustedIssuers: [issuer])
        configuration.scopes = ["api.read"]
        configuration.transport = Glewlwyd.transport
        configuration.fetchPolicy = RemoteFetchPolicy(allowedHosts: [try .init(host: "127.0.0.1", port: try #require(api.port))])
        return configuration
    }

    /// Metadata for a dynamic registration: a secret at the token endpoint, one grant, a name to find the client by.
    static func dynamicMetadata(grant: String) throws -> ClientMetadata {
        var metadata = ClientMetadata(redirectURIs: [try Glewlwyd.redirectURI])
        metadata.clientName = "pra-dynamic-" + UUID().uuidString.prefix(8).lowercased()
        metadata.tokenEndpointAuthMethod = "client_secret_basic"
        metadata.grantTypes = [grant]
        return metadata
    }

    @Test("from the resource's 401 to a glewlwyd access token whose aud is exactly that resource, by a scripted login")
    func authorizationCode() async throws {
        let issuer = try #require(Glewlwyd.issuer)
        let (child, api, refusal) = try await Self.startResource(issuer: issuer)
        defer { child.stop() }
        let authentication = try await Self.makeClient(resource: api.absoluteString, redirectURI: try Glewlwyd.redirectURI)
        let configuration = try Self.configuration(client: .registered(authentication), grant: try Self.scriptedLogin, issuer: issuer, api: api)
        let tokens = try await ProtectedResourceAccess.token(challengedBy: refusal, resource: api, configuration: configuration)
        // glewlwyd's access token is an RFC 9068 JWT: its aud names the resource asked for (RFC 8707).
        #expect(try Self.claims(of: tokens.accessToken).1.contains(api.absoluteString))
    }

    @Test("registered dynamically at glewlwyd's open-registration plugin, then code + PKCE + resource: alice's token for that resource")
    func dynamicAuthorizationCode() async throws {
        guard let issuer = try Self.openRegistrationIssuer(for: try Self.api) else { return }
        let (child, api, refusal) = try await Self.startResource(issuer: issuer)
        defer { child.stop() }
        let metadata = try Self.dynamicMetadata(grant: "authorization_code")
        let configuration = try Self.configuration(
            client: .dynamic(metadata, initialAccessToken: nil), grant: try Self.scriptedLogin, issuer: issuer, api: api)
        let tokens = try await ProtectedResourceAccess.token(challengedBy: refusal, resource: api, configuration: configuration)
        let (claims, audience) = try Self.claims(of: tokens.accessToken)
        #expect(audience.contains(api.absoluteString))
        #expect(claims["iss"] == .string(issuer))
        // The token was issued to the client the registration made (glewlwyd knows it by the name it registered with),
        // for alice: its sub is not the client.
        guard case .string(let clientID)? = claims["client_id"] else {
            Issue.record("the access token has no client_id")
            return
        }
        #expect(try await Self.adminClient(clientID)?["name"] == .string(try #require(metadata.clientName)))
        #expect(claims["sub"] != nil && claims["sub"] != .string(clientID))
    }

    @Test("registered dynamically at glewlwyd's open-registration plugin, then client credentials with resource")
    func dynamicClientCredentials() async throws {
        guard let issuer = try Self.openRegistrationIssuer(for: try Self.api) else { return }
        let (child, api, refusal) = try await Self.startResource(issuer: issuer)
        defer { child.stop() }
        // glewlwyd 2.7.5 gives a registered client the client-credentials scopes of its plugin's
        // register-client-credentials-scope (api.read at "mcp"), whatever the registration's `scope` asked for.
        let metadata = try Self.dynamicMetadata(grant: "client_credentials")
        let configuration = try Self.configuration(
            client: .dynamic(metadata, initialAccessToken: nil), grant: .clientCredentials, issuer: issuer, api: api)
        let tokens = try await ProtectedResourceAccess.token(challengedBy: refusal, resource: api, configuration: configuration)
        let (claims, audience) = try Self.claims(of: tokens.accessToken)
        #expect(audience.contains(api.absoluteString))
        guard case .string(let clientID)? = claims["client_id"] else {
            Issue.record("the access token has no client_id")
            return
        }
        #expect(try await Self.adminClient(clientID)?["name"] == .string(try #require(metadata.clientName)))
        #expect(claims["sub"] == .string(clientID))
    }

    @Test("with a DPoP binding: glewlwyd's client-credentials token for the resource is DPoP-bound to that key (cnf.jkt)")
    func dynamicClientCredentialsWithDPoP() async throws {
        guard let issuer = try Self.openRegistrationIssuer(for: try Self.api) else { return }
        let (child, api, refusal) = try await Self.startResource(issuer: issuer)
        defer { child.stop() }
        let binding = DPoPBinding(key: try DPoPKey.generate())
        var configuration = try Self.configuration(
            client: .dynamic(try Self.dynamicMetadata(grant: "client_credentials"), initialAccessToken: nil), grant: .clientCredentials,
            issuer: issuer, api: api)
        configuration.clientConfiguration.dpop = binding
        // glewlwyd asks for its nonce first (use_dpop_nonce): the binding answers with one retry.
        let tokens = try await ProtectedResourceAccess.token(challengedBy: refusal, resource: api, configuration: configuration)
        #expect(tokens.tokenType.lowercased() == "dpop")
        let (claims, audience) = try Self.claims(of: tokens.accessToken)
        #expect(audience.contains(api.absoluteString))
        guard case .object(let confirmation)? = claims["cnf"] else {
            Issue.record("the DPoP-bound token has no cnf")
            return
        }
        #expect(confirmation["jkt"] == .string(binding.key.thumbprint))
    }

    @Test("glewlwyd's first plugin keeps its rule: a dynamic registration without an initial access token is refused")
    func dynamicRegistrationNeedsInitialAccessTokenAtOIDCPlugin() async throws {
        let issuer = try #require(Glewlwyd.issuer)
        let (child, api, refusal) = try await Self.startResource(issuer: issuer)
        defer { child.stop() }
        let configuration = try Self.configuration(
            client: .dynamic(try Self.dynamicMetadata(grant: "authorization_code"), initialAccessToken: nil), grant: try Self.scriptedLogin,
            issuer: issuer, api: api)
        await expectOIDCError(.registrationRefused, status: 401) {
            _ = try await ProtectedResourceAccess.token(challengedBy: refusal, resource: api, configuration: configuration)
        }
    }
}
