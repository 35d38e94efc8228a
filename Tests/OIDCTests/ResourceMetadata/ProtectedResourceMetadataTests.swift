import Foundation
import JOSE
import Testing

@testable import OIDC

/// RFC 9728, client side: from a resource's 401 to the issuer to get a token from.
@Suite("Protected resource metadata (RFC 9728), client side")
struct ProtectedResourceMetadataTests {
    static let resource = "https://api.example/v1"
    static let wellKnown = "https://api.example/.well-known/oauth-protected-resource/v1"

    static func document(resource: String = resource, servers: [String] = ["https://as.example/tenant"]) -> String {
        #"{"resource":"\#(resource)","authorization_servers":[\#(servers.map { "\"\($0)\"" }.joined(separator: ","))],"#
            + #""scopes_supported":["api.read","api.write"],"bearer_methods_supported":["header"],"x_extra":1}"#
    }

    /// The test resource's host, admitted by name (it is not a public DNS name).
    static func policy() throws -> RemoteFetchPolicy { RemoteFetchPolicy(allowedHosts: [try .init("api.example:443")]) }

    static func challenge(_ value: String) -> TransportResponse {
        var headers = HeaderFields()
        headers.add("WWW-Authenticate", value)
        return TransportResponse(status: 401, headers: headers, body: [])
    }

    @Test("the well-known URL is inserted before the resource's path")
    func metadataURL() throws {
        #expect(try ProtectedResourceDiscovery.metadataURL(forResource: Self.resource).absoluteString == Self.wellKnown)
        #expect(
            try ProtectedResourceDiscovery.metadataURL(forResource: "https://api.example").absoluteString
                == "https://api.example/.well-known/oauth-protected-resource")
    }

    @Test("resource_metadata is read from a Bearer or a DPoP challenge, quoted or among other challenges")
    func challengeParameter() {
        let bearer = Self.challenge(
            #"Bearer realm="api", error="invalid_token", resource_metadata="https://api.example/.well-known/oauth-protected-resource/v1""#)
        #expect(ProtectedResourceDiscovery.resourceMetadataParameter(in: bearer) == Self.wellKnown)
        let dpop = Self.challenge(#"Basic realm="x", DPoP algs="ES256 EdDSA", resource_metadata="https://api.example/m""#)
        #expect(ProtectedResourceDiscovery.resourceMetadataParameter(in: dpop) == "https://api.example/m")
        #expect(ProtectedResourceDiscovery.resourceMetadataParameter(in: Self.challenge("Bearer")) == nil)
        #expect(ProtectedResourceDiscovery.resourceMetadataParameter(in: Self.challenge(#"Basic resource_metadata="https://x""#)) == nil)
        // Malformed or unusual field values never crash and give what can be read.
        for odd in ["", ",,,", "Bearer ,", "Bearer resource_metadata=", #"Bearer realm="unterminated"#, "=", "\"", "Bearer a=\"\\"] {
            _ = ProtectedResourceDiscovery.resourceMetadataParameter(in: Self.challenge(odd))
        }
        #expect(ProtectedResourceDiscovery.resourceMetadataParameter(in: Self.challenge("Bearer resource_metadata=token-value")) == "token-value")
        #expect(
            ProtectedResourceDiscovery.resourceMetadataParameter(in: Self.challenge(#"Bearer abc==, DPoP resource_metadata="https://a/\"b""#))
                == #"https://a/"b"#)
    }

    @Test("a client that starts from only the resource URL reaches the right issuer and gets a token there")
    func resourceToIssuer() async throws {
        let transport = ScriptedTransport()
        let refusal = Self.challenge(#"Bearer resource_metadata="\#(Self.wellKnown)""#)
        transport.script(Self.resource, [.response(refusal)])
        transport.json(Self.wellKnown, Self.document())
        transport.json(AuthorizationServerMetadataTests.wellKnown, AuthorizationServerMetadataTests.document())
        transport.json("https://as.example/tenant/token", #"{"access_token":"at-1","token_type":"Bearer"}"#)

        let answer = try await transport.send(TransportRequest(url: try #require(URL(string: Self.resource))))
        #expect(answer.status == 401)
        let metadata = try await ProtectedResourceDiscovery.fetch(
            challengedBy: answer, resource: Self.resource, transport: transport, fetchPolicy: try Self.policy())
        #expect(metadata.scopesSupported == ["api.read", "api.write"])
        #expect(metadata.additionalFields.names == ["x_extra"])
        let issuer = try metadata.authorizationServer(.trusted(["https://as.example/tenant"]))
        #expect(issuer == "https://as.example/tenant")
        let client = try await OIDCClient.authorizationServer(
            issuer: issuer, authentication: .clientSecretPost(clientID: "svc", secret: "s"),
            transport: transport)
        let tokens = try await client.tokenClient.clientCredentials(scope: metadata.scopesSupported?.first)
        #expect(tokens.accessToken == "at-1")
        // Without a challenge parameter the well-known URL of the resource is used.
        let fromWellKnown = try await ProtectedResourceDiscovery.fetch(
            challengedBy: Self.challenge("Bearer"), resource: Self.resource,
            transport: transport, fetchPolicy: try Self.policy())
        #expect(fromWellKnown == metadata)
    }

    @Test("a document naming another resource is not used (§3.3)")
    func resourceMismatch() async throws {
        let transport = ScriptedTransport()
        transport.json(Self.wellKnown, Self.document(resource: "https://api.example/v2"))
        let error = await #expect(throws: OIDCError.self) {
            _ = try await ProtectedResourceDiscovery.fetch(resource: Self.resource, transport: transport, fetchPolicy: try Self.policy())
        }
        #expect(error?.code == .resourceMetadataMismatch)
    }

    @Test("resource_metadata on another origin, or over http off loopback, is never fetched")
    func originAndHTTPS() async throws {
        let transport = ScriptedTransport()
        transport.json("https://evil.example/m", Self.document())
        let other = await #expect(throws: OIDCError.self) {
            _ = try await ProtectedResourceDiscovery.fetch(
                challengedBy: Self.challenge(#"Bearer resource_metadata="https://evil.example/m""#),
                resource: Self.resource, transport: transport, fetchPolicy: try Self.policy())
        }
        #expect(other?.code == .resourceMetadataOriginMismatch)
        let port = await #expect(throws: OIDCError.self) {
            _ = try await ProtectedResourceDiscovery.fetch(
                challengedBy: Self.challenge(#"Bearer resource_metadata="https://api.example:8443/m""#),
                resource: Self.resource, transport: transport, fetchPolicy: try Self.policy())
        }
        #expect(port?.code == .resourceMetadataOriginMismatch)
        let http = await #expect(throws: OIDCError.self) {
            _ = try await ProtectedResourceDiscovery.fetch(
                challengedBy: Self.challenge(#"Bearer resource_metadata="http://api.example/m""#),
                resource: Self.resource, transport: transport, fetchPolicy: try Self.policy())
        }
        #expect(http?.code == .insecureURL)
        #expect(transport.totalCalls == 0)
    }

    @Test("an http authorization server off loopback is refused; the issuer is chosen among trusted ones or explicitly any")
    func authorizationServers() async throws {
        let transport = ScriptedTransport()
        transport.json(Self.wellKnown, Self.document(servers: ["http://as.example"]))
        let error = await #expect(throws: OIDCError.self) {
            _ = try await ProtectedResourceDiscovery.fetch(resource: Self.resource, transport: transport, fetchPolicy: try Self.policy())
        }
        #expect(error?.code == .insecureURL)
        let metadata = ProtectedResourceMetadata(resource: Self.resource, authorizationServers: ["https://a.example", "https://b.example"])
        #expect(try metadata.authorizationServer(.trusted(["https://b.example"])) == "https://b.example")
        #expect(try metadata.authorizationServer(.anyListed) == "https://a.example")
        #expect(throws: OIDCError.self) { try metadata.authorizationServer(.trusted(["https://c.example"])) }
    }

    @Test("the document round-trips through its JSON form")
    func roundTrip() throws {
        var metadata = ProtectedResourceMetadata(resource: Self.resource, authorizationServers: ["https://as.example/tenant"])
        metadata.scopesSupported = ["api.read"]
        metadata.bearerMethodsSupported = ["header"]
        metadata.dpopSigningAlgValuesSupported = ["ES256"]
        metadata.authorizationDetailsTypesSupported = ["payment_initiation"]
        let parsed = try ProtectedResourceMetadata(jsonBytes: Array(metadata.jsonString.utf8))
        #expect(parsed == metadata)
        #expect(throws: OIDCError.self) { try ProtectedResourceMetadata(jsonBytes: Array(#"{"resource":1}"#.utf8)) }
        #expect(throws: OIDCError.self) { try ProtectedResourceMetadata(jsonBytes: Array(#"{"scopes_supported":[]}"#.utf8)) }
    }
}
