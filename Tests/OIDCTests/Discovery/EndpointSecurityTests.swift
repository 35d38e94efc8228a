import Foundation
import JOSE
import Testing

@testable import OIDC

/// Issue 13 "Cleartext endpoints" and issue 14's one fetch helper: every URL the
/// library calls passes the same policy, and a provider's document cannot
/// downgrade an endpoint to `http`.
@Suite("Endpoint security: https for every endpoint, one fetch")
struct EndpointSecurityTests {
    static let issuer = IDTokenFixtures.issuer
    static let wellKnown = issuer + "/.well-known/openid-configuration"

    static func error(_ body: () async throws -> Void) async -> OIDCError? {
        do { try await body() } catch let error as OIDCError { return error } catch { Issue.record("not an OIDCError: \(error)") }
        return nil
    }

    @Test(
        "an https issuer's document with an http endpoint is refused, naming the endpoint",
        arguments: [
            ("token_endpoint", "http://op.example.com/token"),
            ("userinfo_endpoint", "http://op.example.com/userinfo"),
            ("revocation_endpoint", "http://op.example.com/revoke"),
            ("introspection_endpoint", "http://op.example.com/introspect"),
            ("end_session_endpoint", "http://op.example.com/logout"),
            ("pushed_authorization_request_endpoint", "http://op.example.com/par"),
            ("device_authorization_endpoint", "http://op.example.com/device"),
            ("backchannel_authentication_endpoint", "http://op.example.com/bc-authorize"),
            ("registration_endpoint", "http://op.example.com/register"),
            ("authorization_endpoint", "http://op.example.com/authorize"),
            ("jwks_uri", "http://127.0.0.1/jwks"),
            ("token_endpoint", "http://127.0.0.1:8080/token"),
            ("userinfo_endpoint", "http://localhost/userinfo"),
        ])
    func httpEndpointFromHTTPSIssuer(_ member: String, _ url: String) async throws {
        let transport = ScriptedTransport()
        transport.json(Self.wellKnown, DiscoveryTests.document(drop: [member], extra: ",\"\(member)\":\"\(url)\""))
        let error = await Self.error { _ = try await Discovery(transport: transport).metadata(for: Self.issuer) }
        #expect(error?.code == .insecureURL)
        #expect(error?.endpoint == ProviderEndpoint(rawValue: member))
        #expect(error?.reason.contains(member) == true)
    }

    @Test("an mtls_endpoint_aliases entry is checked too")
    func mtlsAlias() async throws {
        let transport = ScriptedTransport()
        transport.json(
            Self.wellKnown,
            DiscoveryTests.document(
                drop: ["mtls_endpoint_aliases"],
                extra: #","mtls_endpoint_aliases":{"token_endpoint":"http://mtls.example.com/t"}"#))
        let error = await Self.error { _ = try await Discovery(transport: transport).metadata(for: Self.issuer) }
        #expect(error?.code == .insecureURL)
        #expect(error?.endpoint == .mtlsAlias("token_endpoint"))
    }

    @Test("a loopback http issuer may publish loopback http endpoints, not remote http ones")
    func loopbackIssuer() async throws {
        let issuer = "http://127.0.0.1:9436/o"
        let transport = ScriptedTransport()
        transport.json(issuer + "/.well-known/openid-configuration", DiscoveryTests.document(issuer: issuer))
        let metadata = try await Discovery(transport: transport).metadata(for: issuer)
        #expect(metadata.tokenEndpoint?.scheme == "http")
        var remote = metadata
        remote.userinfoEndpoint = URL(string: "http://op.example.com/userinfo")
        #expect(throws: OIDCError.self) { try remote.checkEndpointSecurity() }
    }

    @Test("an https loopback issuer cannot downgrade to http on loopback either")
    func httpsLoopbackIssuer() throws {
        var metadata = ProviderMetadata(issuer: "https://localhost:9437")
        metadata.tokenEndpoint = URL(string: "http://localhost:9437/token")
        #expect(throws: OIDCError.self) { try metadata.checkEndpointSecurity() }
    }

    @Test("TokenClient sends nothing to an http token, revocation or userinfo endpoint of a remote host")
    func tokenClientRefusesHTTP() async throws {
        let transport = CannedTransport(status: 200, body: TokenClientTests.success)
        let client = try TokenClient(
            tokenEndpoint: URL(string: "http://op.example.com/token")!,
            authentication: .clientSecretPost(clientID: "c", secret: "SECRET"), transport: transport)
        let exchange = await Self.error {
            _ = try await client.exchangeCode("CODE", redirectURI: URL(string: "https://app.example/cb")!, codeVerifier: "VERIFIER")
        }
        #expect(exchange?.code == .insecureURL && exchange?.endpoint == .token)
        let refresh = await Self.error { _ = try await client.refresh("RT") }
        #expect(refresh?.code == .insecureURL && refresh?.endpoint == .token)
        let https = try TokenClient(tokenEndpoint: TokenClientTests.endpoint, authentication: .none(clientID: "c"), transport: transport)
        let revoke = await Self.error { try await https.revoke("RT", endpoint: URL(string: "http://op.example.com/revoke")!) }
        #expect(revoke?.code == .insecureURL && revoke?.endpoint == .revocation)
        let userInfo = await Self.error { _ = try await https.userInfo(accessToken: "AT", endpoint: URL(string: "http://op.example.com/me")!) }
        #expect(userInfo?.code == .insecureURL && userInfo?.endpoint == .userinfo)
        #expect(transport.requests.isEmpty)
    }

    @Test("TokenClient of an https issuer refuses an http loopback endpoint; of a loopback issuer it accepts it")
    func tokenClientIssuerRule() async throws {
        let transport = CannedTransport(status: 200, body: TokenClientTests.success)
        let loopback = URL(string: "http://127.0.0.1:9438/token")!
        let remote = try TokenClient(tokenEndpoint: loopback, issuer: Self.issuer, authentication: .none(clientID: "c"), transport: transport)
        let error = await Self.error { _ = try await remote.refresh("RT") }
        #expect(error?.code == .insecureURL && error?.endpoint == .token)
        #expect(transport.requests.isEmpty)
        let local = try TokenClient(tokenEndpoint: loopback, issuer: "http://127.0.0.1:9438", authentication: .none(clientID: "c"), transport: transport)
        _ = try await local.refresh("RT")
        #expect(transport.requests.count == 1)

        var metadata = ProviderMetadata(issuer: Self.issuer)
        metadata.tokenEndpoint = loopback
        #expect(throws: OIDCError.self) {
            try TokenClient(metadata: metadata, authentication: .none(clientID: "c"), transport: transport)
        }
    }

    @Test("a JWK Set cache of a remote issuer refuses an http loopback jwks_uri")
    func jwksOfRemoteIssuer() async throws {
        #expect(throws: OIDCError.self) {
            try JWKSetCache(jwksURI: URL(string: "http://127.0.0.1:9439/jwks")!, issuer: Self.issuer, transport: ScriptedTransport())
        }
        _ = try JWKSetCache(jwksURI: URL(string: "http://127.0.0.1:9439/jwks")!, issuer: "http://127.0.0.1:9439", transport: ScriptedTransport())
    }

    /// Records every request; answers as scripted.
    final class Recorder: HTTPTransport {
        let log = Locked<[TransportRequest]>([])
        let answer: @Sendable (TransportRequest) -> TransportResponse
        init(_ answer: @escaping @Sendable (TransportRequest) -> TransportResponse) { self.answer = answer }
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            log.withLock { $0.append(request) }
            return answer(request)
        }
    }

    @Test("discovery, JWK Set and token requests all go out without following redirects")
    func noRedirects() async throws {
        let document = DiscoveryTests.document()
        let jwks = IDTokenFixtures.jwks([try IDTokenFixtures.publicJWK("rsa2048", kid: "k1")])
        let recorder = Recorder { request in
            let path = request.url.path
            let body = path.hasSuffix("openid-configuration") ? document : path.hasSuffix("jwks") ? jwks : TokenClientTests.success
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
        }
        let metadata = try await Discovery(transport: recorder).metadata(for: Self.issuer)
        _ = try await JWKSetCache(jwksURI: try #require(metadata.jwksURI), issuer: metadata.issuer, transport: recorder).keys()
        _ = try await TokenClient(metadata: metadata, authentication: .none(clientID: "c"), transport: recorder).refresh("RT")
        let requests = recorder.log.withLock { $0 }
        #expect(requests.count == 3)
        #expect(requests.allSatisfy { !$0.followsRedirects })
    }

    @Test("a response body larger than the bound is a typed error naming the endpoint")
    func boundedBody() async throws {
        let padding = String(repeating: "a", count: EndpointFetch.defaultMaxBodyBytes)
        let transport = ScriptedTransport()
        transport.json(Self.wellKnown, DiscoveryTests.document(extra: ",\"x_padding\":\"\(padding)\""))
        let error = await Self.error { _ = try await Discovery(transport: transport).metadata(for: Self.issuer) }
        #expect(error?.code == .discoveryInvalidDocument)
        #expect(error?.endpoint == .discoveryDocument)

        let big = CannedTransport(status: 200, body: #"{"access_token":"AT","token_type":"Bearer","x":""# + padding + #""}"#)
        let tokenError = await Self.error {
            _ = try await TokenClient(tokenEndpoint: TokenClientTests.endpoint, authentication: .none(clientID: "c"), transport: big).refresh("RT")
        }
        #expect(tokenError?.code == .invalidEndpointResponse)
        #expect(tokenError?.endpoint == .token)
    }

    @Test("transport and status failures name the endpoint and keep their codes")
    func failuresNameTheEndpoint() async throws {
        let transport = ScriptedTransport()
        transport.script(IDTokenFixtures.jwksURL.absoluteString, [.failure(.timedOut)])
        let cache = try JWKSetCache(jwksURI: IDTokenFixtures.jwksURL, transport: transport)
        let jwksError = await Self.error { _ = try await cache.keys() }
        #expect(jwksError?.code == .jwksTransportFailed && jwksError?.endpoint == .jwks && jwksError?.transportError == .timedOut)

        let refused = CannedTransport(status: 400, body: #"{"error":"invalid_grant"}"#)
        let tokenError = await Self.error {
            _ = try await TokenClient(tokenEndpoint: TokenClientTests.endpoint, authentication: .none(clientID: "c"), transport: refused).refresh("RT")
        }
        #expect(tokenError?.code == .oauthError && tokenError?.oauthError?.code == .invalidGrant && tokenError?.endpoint == .token)
    }
}
