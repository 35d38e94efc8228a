import Foundation
import JOSE
import Testing

@testable import OIDC

/// RFC 8414: discovery at `/.well-known/oauth-authorization-server` (path inserted) and OAuth-only clients.
@Suite("Authorization server metadata (RFC 8414)")
struct AuthorizationServerMetadataTests {
    static let issuer = "https://as.example/tenant"
    static let wellKnown = "https://as.example/.well-known/oauth-authorization-server/tenant"

    /// An OAuth-only document: no `jwks_uri`, `subject_types_supported` or ID Token algorithms.
    static func document(issuer: String = issuer, tokenEndpoint: String = "https://as.example/tenant/token") -> String {
        #"{"issuer":"\#(issuer)","token_endpoint":"\#(tokenEndpoint)","introspection_endpoint":"https://as.example/tenant/introspect","#
            + #""grant_types_supported":["client_credentials","urn:ietf:params:oauth:grant-type:token-exchange"],"response_types_supported":["code"]}"#
    }

    @Test("the well-known segment goes between the host and the issuer's path (§3.1)")
    func pathInsertion() throws {
        #expect(try Discovery.authorizationServerMetadataURL(for: "https://as.example/tenant").absoluteString == Self.wellKnown)
        #expect(try Discovery.authorizationServerMetadataURL(for: "https://as.example/tenant/").absoluteString == Self.wellKnown)
        #expect(
            try Discovery.authorizationServerMetadataURL(for: "https://as.example").absoluteString
                == "https://as.example/.well-known/oauth-authorization-server")
        #expect(
            try Discovery.authorizationServerMetadataURL(for: "https://as.example/").absoluteString
                == "https://as.example/.well-known/oauth-authorization-server")
        #expect(
            try Discovery.authorizationServerMetadataURL(for: "http://127.0.0.1:8080/a/b").absoluteString
                == "http://127.0.0.1:8080/.well-known/oauth-authorization-server/a/b")
        #expect(throws: OIDCError.self) { try Discovery.authorizationServerMetadataURL(for: "http://as.example/tenant") }
    }

    @Test("an OAuth-only server: found at the inserted URL, client credentials work, a login is refused with a typed error")
    func oauthOnlyClient() async throws {
        let transport = ScriptedTransport()
        transport.json(Self.wellKnown, Self.document())
        transport.json("https://as.example/tenant/token", #"{"access_token":"at-1","token_type":"Bearer","expires_in":60}"#)
        let client = try await OIDCClient.authorizationServer(
            issuer: Self.issuer, authentication: .clientSecretBasic(clientID: "svc", secret: "s3cret"),
            transport: transport)
        #expect(client.providerKind == .oauthAuthorizationServer)
        #expect(client.metadata.introspectionEndpoint?.absoluteString == "https://as.example/tenant/introspect")
        let tokens = try await client.tokenClient.clientCredentials(scope: "api.read")
        #expect(tokens.accessToken == "at-1")
        let redirect = try #require(URL(string: "https://app.example/cb"))
        let refused = await #expect(throws: OIDCError.self) { _ = try await client.startLogin(LoginRequest(redirectURI: redirect, push: .never)) }
        #expect(refused?.code == .notAnOpenIDProvider)
        let pushed = await #expect(throws: OIDCError.self) { _ = try await client.startLogin(LoginRequest(redirectURI: redirect, push: .always)) }
        #expect(pushed?.code == .notAnOpenIDProvider)
        // The OpenID discovery of the same server finds nothing there: this document is only at the RFC 8414 URL.
        await #expect(throws: OIDCError.self) {
            _ = try await OIDCClient.discover(issuer: Self.issuer, authentication: .none(clientID: "svc"), transport: transport)
        }
    }

    @Test("the document's issuer must equal the requested issuer exactly, as for OpenID discovery")
    func issuerMismatch() async throws {
        let transport = ScriptedTransport()
        transport.json(Self.wellKnown, Self.document(issuer: "https://as.example/tenant/"))
        let error = await #expect(throws: OIDCError.self) {
            _ = try await Discovery.fetchAuthorizationServer(issuer: Self.issuer, transport: transport)
        }
        #expect(error?.code == .discoveryIssuerMismatch)
    }

    @Test("an http endpoint from an https issuer is refused; an http issuer off loopback is never fetched")
    func httpsRule() async throws {
        let transport = ScriptedTransport()
        transport.json(Self.wellKnown, Self.document(tokenEndpoint: "http://as.example/tenant/token"))
        let error = await #expect(throws: OIDCError.self) {
            _ = try await Discovery.fetchAuthorizationServer(issuer: Self.issuer, transport: transport)
        }
        #expect(error?.code == .insecureURL)
        let insecure = await #expect(throws: OIDCError.self) {
            _ = try await Discovery.fetchAuthorizationServer(issuer: "http://as.example/tenant", transport: transport)
        }
        #expect(insecure?.code == .insecureURL)
        #expect(transport.calls("http://as.example/.well-known/oauth-authorization-server/tenant") == 0)
    }

    @Test("an OpenID provider's document at the RFC 8414 location gives a client that logs in")
    func openIDDocumentAtOAuthLocation() async throws {
        let issuer = IDTokenFixtures.issuer
        let transport = ScriptedTransport()
        transport.json("https://op.example.com/.well-known/oauth-authorization-server", DiscoveryTests.document())
        let discovery = Discovery(transport: transport)
        let metadata = try await discovery.authorizationServerMetadata(for: issuer)
        _ = try await discovery.authorizationServerMetadata(for: issuer)
        #expect(transport.calls("https://op.example.com/.well-known/oauth-authorization-server") == 1)
        let client = try OIDCClient(authorizationServerMetadata: metadata, authentication: .none(clientID: "app"), transport: transport)
        #expect(client.providerKind == .openIDProvider)
        _ = try await client.startLogin(LoginRequest(redirectURI: try #require(URL(string: "https://app.example/cb"))))
    }
}
