import Foundation
import JOSE
import OIDC
import OIDCNetworking
import TestProcesses
import Testing

/// Tests/Support/grant_server.py on 127.0.0.1:9454: token exchange (RFC 8693) and the JWT
/// bearer grant (RFC 7523), which glewlwyd 2.7.5 does not implement, over real HTTP.
@Suite(
    "Scripted server: token exchange and JWT bearer over HTTP", .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct ScriptedGrantServerTests {
    static let keys = Provider.repository.appendingPathComponent("Keys")

    /// Starts the server (port from GRANT_SERVER_PORT, default 9454), runs `body`, stops it.
    func withServer(_ body: (TokenClient, URL) async throws -> Void) async throws {
        let port = ProcessInfo.processInfo.environment["GRANT_SERVER_PORT"] ?? "9454"
        let child = try StartedChild(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", Provider.repository.appendingPathComponent("Tests/Support/grant_server.py").path,
                "--port", port, "--assertion-key", Self.keys.appendingPathComponent("p256.pub.pem").path,
            ])
        defer { child.stop() }
        let line = try await child.firstLine(limit: 8)
        try #require(line == port, "the grant server did not start on \(port)")
        let endpoint = try #require(URL(string: "http://127.0.0.1:\(port)/token"))
        let client = try TokenClient(
            tokenEndpoint: endpoint, authentication: .clientSecretBasic(clientID: "svc", secret: "svc-secret"),
            transport: URLSessionTransport())
        try await body(client, endpoint)
    }

    @Test("RFC 8414 and RFC 9728 over HTTP: from the resource URL alone to the OAuth-only issuer, then a token exchange there")
    func resourceToAuthorizationServer() async throws {
        try await withServer { _, endpoint in
            let base = try #require(endpoint.absoluteString.components(separatedBy: "/token").first)
            let transport = URLSessionTransport()
            let refusal = try await transport.send(TransportRequest(url: try #require(URL(string: base + "/api"))))
            #expect(refusal.status == 401)
            // The scripted server is on loopback: admitted by name, as an application would (RemoteFetchPolicy).
            let local = RemoteFetchPolicy(allowedHosts: [try .init(host: "127.0.0.1", port: try #require(endpoint.port))])
            let metadata = try await ProtectedResourceDiscovery.fetch(
                challengedBy: refusal, resource: base + "/api", transport: transport,
                fetchPolicy: local)
            let issuer = try metadata.authorizationServer(.trusted([base + "/tenant"]))
            let client = try await OIDCClient.authorizationServer(
                issuer: issuer, authentication: .clientSecretBasic(clientID: "svc", secret: "svc-secret"),
                transport: transport)
            #expect(client.providerKind == .oauthAuthorizationServer && client.issuer == base + "/tenant")
            let answer = try await client.tokenClient.exchangeToken(TokenExchangeRequest(subjectToken: "user-token", subjectTokenType: .accessToken))
            #expect(answer.tokens.accessToken == "exchanged-for-access_token")
            await #expect(throws: OIDCError.self) {
                _ = try await OIDCClient.discover(issuer: issuer, authentication: .none(clientID: "svc"), transport: transport)
            }
        }
    }

    @Test("ProtectedResourceAccess: from the 401 to a client-credentials token for exactly that resource, then the retry")
    func protectedResourceAccess() async throws {
        try await withServer { _, endpoint in
            let base = try #require(endpoint.absoluteString.components(separatedBy: "/token").first)
            let transport = URLSessionTransport()
            let api = try #require(URL(string: base + "/api"))
            let refusal = try await transport.send(TransportRequest(url: api))
            #expect(refusal.status == 401)
            var configuration = ProtectedResourceAccess.Configuration(
                client: .registered(.clientSecretBasic(clientID: "svc", secret: "svc-secret")), grant: .clientCredentials,
                trustedIssuers: [base + "/tenant"])
            configuration.transport = transport
            func code(_ resource: URL, _ configuration: ProtectedResourceAccess.Configuration) async -> OIDCError.Code? {
                do {
                    _ = try await ProtectedResourceAccess.token(challengedBy: refusal, resource: resource, configuration: configuration)
                    return nil
                } catch {
                    return (error as? OIDCError)?.code
                }
            }
            // The default fetch policy refuses a loopback resource_metadata before any request (request forgery).
            #expect(await code(api, configuration) == .resourceMetadataHostRefused)
            configuration.fetchPolicy = RemoteFetchPolicy(allowedHosts: [try .init(host: "127.0.0.1", port: try #require(endpoint.port))])
            // RFC 9728 §3.3: the document names BASE/api, not the URL this client reached.
            #expect(await code(try #require(URL(string: base + "/api/other")), configuration) == .resourceMetadataMismatch)
            var untrusting = configuration
            untrusting.authorizationServer = .trusted(["https://as.example"])
            #expect(await code(api, untrusting) == .noTrustedAuthorizationServer)
            // The authorization code flow needs an OpenID provider here; the scripted server is OAuth-only (RFC 8414).
            var login = configuration
            login.grant = .authorizationCode(redirectURI: try #require(URL(string: "http://127.0.0.1:1/callback"))) { _ in .parameters("") }
            #expect(await code(api, login) == .notAnOpenIDProvider)
            let tokens = try await ProtectedResourceAccess.token(challengedBy: refusal, resource: api, configuration: configuration)
            #expect(tokens.accessToken == "cc-for-" + base + "/api")
            let retried = try await transport.send(TransportRequest(url: api, headers: ["Authorization": "Bearer " + tokens.accessToken]))
            #expect(retried.status == 200)
            // Registered dynamically (RFC 7591) at the server the resource names, then the same token.
            var metadata = ClientMetadata(redirectURIs: [])
            metadata.grantTypes = ["client_credentials"]
            metadata.tokenEndpointAuthMethod = "client_secret_basic"
            var registering = configuration
            registering.client = .dynamic(metadata, initialAccessToken: nil)
            let registered = try await ProtectedResourceAccess.token(challengedBy: refusal, resource: api, configuration: registering)
            #expect(registered.accessToken == "cc-for-" + base + "/api")
            metadata.grantTypes = ["authorization_code"]
            registering.client = .dynamic(metadata, initialAccessToken: nil)
            #expect(await code(api, registering) == .registrationRefused)
        }
    }

    @Test("token exchange: parameters arrive, issued_token_type comes back typed; a refused subject token is invalid_grant")
    func tokenExchange() async throws {
        try await withServer { client, _ in
            let request = TokenExchangeRequest(
                subjectToken: "user-access-token", subjectTokenType: .accessToken, actorToken: "svc-token",
                actorTokenType: .jwt, resources: [URL(string: "https://backend.example/api")!],
                audiences: ["backend", "audit"], scope: "read", requestedTokenType: .jwt)
            let answer = try await client.exchangeToken(request)
            #expect(answer.issuedTokenType == .jwt)
            #expect(answer.tokens.accessToken == "exchanged-for-access_token")
            #expect(answer.tokens.additionalFields["received_audience"] == .array(["backend", "audit"]))
            #expect(answer.tokens.additionalFields["received_resource"] == .array(["https://backend.example/api"]))
            #expect(answer.tokens.additionalFields["received_actor_token_type"]?.stringValue == TokenTypeIdentifier.jwt.rawValue)
            await expectOIDCError(.oauthError, oauth: .invalidGrant, status: 400) {
                _ = try await client.exchangeToken(TokenExchangeRequest(subjectToken: "revoked", subjectTokenType: .accessToken))
            }
        }
    }

    @Test("JWT bearer grant: an ES256 assertion for the token endpoint is accepted once; another key is refused")
    func jwtBearer() async throws {
        try await withServer { client, endpoint in
            let key = try JWK(json: String(contentsOf: Self.keys.appendingPathComponent("p256.jwk"), encoding: .utf8))
            let assertion = JWTBearerAssertion(issuer: "svc", subject: "alice", audience: endpoint.absoluteString, key: key, algorithm: .es256)
            let tokens = try await client.jwtBearerGrant(assertion, scope: "read")
            #expect(tokens.accessToken == "jwt-bearer-for-alice")
            let signed = try assertion.sign(now: Date())
            _ = try await client.jwtBearerGrant(assertion: signed)
            await expectOIDCError(.oauthError, oauth: .invalidGrant) { _ = try await client.jwtBearerGrant(assertion: signed) }  // jti replay
            // The same assertion with another sub: the signature no longer matches.
            var parts = try assertion.sign(now: Date()).split(separator: ".").map(String.init)
            let claims = try JSONParser.parseObject(try Base64URL.decode(parts[1]), what: "claims")
            var forged = claims
            forged["sub"] = "mallory"
            parts[1] = Base64URL.encode(Array(forged.jsonString().utf8))
            await expectOIDCError(.oauthError, oauth: .invalidGrant) { _ = try await client.jwtBearerGrant(assertion: parts.joined(separator: ".")) }
            let other = try JWK(json: String(contentsOf: Self.keys.appendingPathComponent("p384.jwk"), encoding: .utf8))
            await expectOIDCError(.oauthError, oauth: .invalidGrant) {
                _ = try await client.jwtBearerGrant(
                    JWTBearerAssertion(
                        issuer: "svc", subject: "alice", audience: endpoint.absoluteString,
                        key: other, algorithm: .es384))
            }
        }
    }
}
