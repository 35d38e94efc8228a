import Foundation
import JOSE
import Testing

@testable import OIDC

/// RFC 8705: `tls_client_auth` / `self_signed_tls_client_auth` send only `client_id`, and a client using
/// mutual TLS calls the provider's `mtls_endpoint_aliases`.
@Suite("mTLS client authentication and endpoint aliases")
struct OIDCClientMutualTLSTests {
    static func metadata(aliases: [String: String]?) -> ProviderMetadata {
        var metadata = OIDCClientTests.metadata()
        metadata.introspectionEndpoint = URL(string: "https://op.example.com/introspect")
        metadata.mtlsEndpointAliases = aliases
        return metadata
    }

    static let aliases = [
        "token_endpoint": "https://mtls.op.example.com/token", "userinfo_endpoint": "https://mtls.op.example.com/userinfo",
        "revocation_endpoint": "https://mtls.op.example.com/revoke",
        "introspection_endpoint": "https://mtls.op.example.com/introspect",
    ]

    @Test("tls_client_auth and self_signed_tls_client_auth: client_id in the body, no secret, no Authorization header")
    func bodyCarriesClientIDOnly() async throws {
        let transport = CannedTransport(status: 200, body: TokenClientTests.success)
        for authentication in [ClientAuthentication.tlsClientAuth(clientID: "mtls app"), .selfSignedTLSClientAuth(clientID: "mtls app")] {
            _ = try await TokenClient(tokenEndpoint: TokenClientTests.endpoint, authentication: authentication, transport: transport).refresh("RT")
            #expect(authentication.usesMutualTLS)
        }
        #expect(transport.requests.count == 2)
        for request in transport.requests {
            #expect(request.bodyText == "grant_type=refresh_token&refresh_token=RT&client_id=mtls%20app")
            #expect(request.headers["Authorization"] == nil)
        }
        #expect(ClientAuthentication.tlsClientAuth(clientID: "a").methodName == "tls_client_auth")
        #expect(ClientAuthentication.selfSignedTLSClientAuth(clientID: "a").methodName == "self_signed_tls_client_auth")
        #expect(!ClientAuthentication.clientSecretBasic(clientID: "a", secret: "s").usesMutualTLS)
    }

    @Test("a tls_client_auth client calls mtls_endpoint_aliases for token, UserInfo and revocation; others keep theirs")
    func aliasesUsed() throws {
        let client = try OIDCClient(
            metadata: Self.metadata(aliases: Self.aliases), authentication: .tlsClientAuth(clientID: "app"),
            transport: ScriptedTransport())
        #expect(client.tokenClient.tokenEndpoint.absoluteString == "https://mtls.op.example.com/token")
        #expect(client.metadata.userinfoEndpoint?.absoluteString == "https://mtls.op.example.com/userinfo")
        #expect(client.metadata.revocationEndpoint?.absoluteString == "https://mtls.op.example.com/revoke")
        #expect(client.metadata.introspectionEndpoint?.absoluteString == "https://mtls.op.example.com/introspect")
        #expect(client.metadata.authorizationEndpoint?.absoluteString == "https://op.example.com/authorize")
        let direct = try TokenClient(
            metadata: Self.metadata(aliases: Self.aliases), authentication: .selfSignedTLSClientAuth(clientID: "app"),
            transport: ScriptedTransport())
        #expect(direct.tokenEndpoint.absoluteString == "https://mtls.op.example.com/token")
    }

    @Test("without mutual TLS the aliases are not used, unless usesMutualTLSEndpoints is set; without aliases the standard endpoints stay")
    func aliasesOnlyForMutualTLS() throws {
        let secret = ClientAuthentication.clientSecretBasic(clientID: "app", secret: "s3cret-s3cret-s3cret-s3cret-s3cret!")
        let plain = try OIDCClient(metadata: Self.metadata(aliases: Self.aliases), authentication: secret, transport: ScriptedTransport())
        #expect(plain.tokenClient.tokenEndpoint.absoluteString == OIDCClientTests.tokenURL)
        var configuration = OIDCClient.Configuration()
        configuration.usesMutualTLSEndpoints = true
        let opted = try OIDCClient(
            metadata: Self.metadata(aliases: Self.aliases), authentication: secret, transport: ScriptedTransport(),
            configuration: configuration)
        #expect(opted.tokenClient.tokenEndpoint.absoluteString == "https://mtls.op.example.com/token")
        let none = try OIDCClient(metadata: Self.metadata(aliases: nil), authentication: .tlsClientAuth(clientID: "app"), transport: ScriptedTransport())
        #expect(none.tokenClient.tokenEndpoint.absoluteString == OIDCClientTests.tokenURL)
    }

    @Test("an http or unparseable alias is refused with the alias named, like any discovered endpoint")
    func insecureAliasRefused() throws {
        for bad in ["http://mtls.op.example.com/token", "http://127.0.0.1:1/token", "::not a url"] {
            let error = try #require(throws: OIDCError.self) {
                _ = try OIDCClient(
                    metadata: Self.metadata(aliases: ["token_endpoint": bad]), authentication: .tlsClientAuth(clientID: "app"),
                    transport: ScriptedTransport())
            }
            #expect(error.code == .insecureURL || error.code == .invalidIssuerURL)
            #expect(error.endpoint == .mtlsAlias("token_endpoint"))
        }
    }
}
