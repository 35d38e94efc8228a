import Foundation
import JOSE
import OIDC
import OIDCNetworking
import TestProcesses
import Testing

/// ProtectedResourceAccess with a real authorization server: Tests/Support/grant_server.py is the protected resource
/// (401 with `resource_metadata`, its RFC 9728 document naming glewlwyd), glewlwyd issues the token through the
/// authorization code flow with PKCE and `resource` (RFC 8707), alice logging in through Tests/Glewlwyd/login.py.
@Suite(
    "ProtectedResourceAccess with glewlwyd: authorization code + PKCE + resource", .serialized,
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

    @Test("from the resource's 401 to a glewlwyd access token whose aud is exactly that resource, by a scripted login")
    func authorizationCode() async throws {
        let issuer = try #require(Glewlwyd.issuer)
        let port = ProcessInfo.processInfo.environment["GLEWLWYD_GRANT_SERVER_PORT"] ?? "9458"  // not 9454: ScriptedGrantServerTests runs beside it
        let child = try StartedChild(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", Provider.repository.appendingPathComponent("Tests/Support/grant_server.py").path, "--port", port,
                "--assertion-key", Provider.repository.appendingPathComponent("Keys/p256.pub.pem").path, "--resource-issuer", issuer,
            ])
        defer { child.stop() }
        let line = try await child.firstLine(limit: 8)
        try #require(line == port, "the grant server did not start on \(port)")
        let api = try #require(URL(string: "http://127.0.0.1:\(port)/api"))
        let redirectURI = try Glewlwyd.redirectURI
        let authentication = try await Self.makeClient(resource: api.absoluteString, redirectURI: redirectURI)
        let refusal = try await Glewlwyd.transport.send(TransportRequest(url: api))
        #expect(refusal.status == 401)
        var configuration = ProtectedResourceAccess.Configuration(
            client: .registered(authentication),
            grant: .authorizationCode(redirectURI: redirectURI) { url in
                let (line, status) = try await Glewlwyd.runScript("login.py", ["--authorize-url", url.absoluteString])
                let redirect = try #require(URL(string: line), "login.py printed no redirect URL (status \(status))")
                return .url(redirect)
            },
            trustedIssuers: [issuer])
        configuration.scopes = ["api.read"]
        configuration.transport = Glewlwyd.transport
        configuration.fetchPolicy = RemoteFetchPolicy(allowedHosts: [try .init(host: "127.0.0.1", port: try #require(api.port))])
        let tokens = try await ProtectedResourceAccess.token(challengedBy: refusal, resource: api, configuration: configuration)
        // glewlwyd's access token is an RFC 9068 JWT: its aud names the resource asked for (RFC 8707).
        let parts = tokens.accessToken.split(separator: ".")
        try #require(parts.count == 3)
        let claims = try JSONParser.parseObject(try Base64URL.decode(String(parts[1])), what: "the access token's claims")
        let audience: [String]
        switch claims["aud"] {
        case .string(let one)?: audience = [one]
        case .array(let many)?: audience = many.compactMap { if case .string(let text) = $0 { text } else { nil } }
        default: audience = []
        }
        #expect(audience.contains(api.absoluteString))
    }
}
