import Foundation
import JOSE
import OIDC
import OIDCSession
import Testing

/// The session's construction rules, on every path: origins pass SecureURLPolicy; a DPoP token is never sent as Bearer.
@Suite("AuthenticatedSession: cleartext origins and the DPoP rule")
struct SessionOriginAndDPoPRuleTests {
    static let remoteHTTP = URL(string: "http://api.example.com")!

    func expectInsecure(_ sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("an http origin on a remote host was accepted", sourceLocation: sourceLocation)
        } catch let error as OIDCError {
            #expect(error.code == .insecureURL, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected OIDCError insecure_url, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("an http origin on a remote host is refused at construction, on every path, and nothing is sent or saved")
    func remoteHTTPRefused() async throws {
        let api = ScriptedAPI(validToken: "AT-1")
        let store = InMemoryTokenStore(Fixtures.start)
        await expectInsecure {
            _ = try AuthenticatedSession(
                tokens: Fixtures.start, refresher: CountingRefresher(api: api),
                configuration: .init(allowedOrigins: [Fixtures.api, Self.remoteHTTP], transport: api, proactiveRefreshMargin: nil))
        }
        await expectInsecure {
            _ = try await AuthenticatedSession.resume(
                refresher: CountingRefresher(api: api),
                configuration: .init(allowedOrigins: [Self.remoteHTTP], transport: api, store: store, proactiveRefreshMargin: nil))
        }
        await expectInsecure {
            _ = try AuthenticatedSession(
                tokens: Fixtures.start, refresher: CountingRefresher(api: api),
                configuration: .init(
                    allowedOrigins: [Self.remoteHTTP], transport: api,
                    dpop: DPoPBinding(key: try DPoPKey.generate())))
        }
        #expect(api.seenAuthorizations.isEmpty)
        // Loopback http stays allowed (local development), https everywhere.
        _ = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: CountingRefresher(api: api),
            configuration: .init(
                allowedOrigins: [URL(string: "http://127.0.0.1:8080")!, URL(string: "http://localhost")!, URL(string: "http://[::1]:9000")!, Fixtures.api],
                transport: api, proactiveRefreshMargin: nil))
        #expect(throws: OIDCError.self) {
            _ = try AuthenticatedSession(
                tokens: Fixtures.start, refresher: CountingRefresher(api: api),
                configuration: .init(
                    allowedOrigins: [URL(string: "http://app.localhost")!], transport: api,
                    proactiveRefreshMargin: nil))
        }
        #expect(throws: OIDCError.self) {
            _ = try AuthenticatedSession(
                tokens: Fixtures.start, refresher: CountingRefresher(api: api),
                configuration: .init(
                    allowedOrigins: [URL(string: "ftp://api.example.com")!], transport: api,
                    proactiveRefreshMargin: nil))
        }
    }

    @Test("OIDCClient.session and the client-credentials session refuse a remote http origin before touching the store or the provider")
    func clientPathsRefuseRemoteHTTP() async throws {
        let world = ServiceWorld()
        var metadata = ProviderMetadata(issuer: "https://as.example")
        metadata.authorizationEndpoint = URL(string: "https://as.example/authorize")
        metadata.tokenEndpoint = ServiceWorld.tokenEndpoint
        metadata.jwksURI = URL(string: "https://as.example/jwks")
        let client = try OIDCClient(metadata: metadata, authentication: .clientSecretBasic(clientID: "app", secret: "s"), transport: world)
        let store = InMemoryTokenStore()
        await expectInsecure {
            _ = try await client.session(
                tokens: Fixtures.start,
                configuration: .init(allowedOrigins: [Self.remoteHTTP], store: store))
        }
        #expect(await store.load() == nil, "nothing is saved for a session that cannot be made")
        let source = ClientCredentialsTokenSource(
            client: try TokenClient(
                tokenEndpoint: ServiceWorld.tokenEndpoint, authentication: .clientSecretBasic(clientID: "svc", secret: "s"),
                transport: world),
            scope: "api.read")
        await expectInsecure {
            _ = try await AuthenticatedSession.clientCredentials(
                source,
                configuration: .init(allowedOrigins: [Self.remoteHTTP], transport: world))
        }
        #expect(world.grants == 0, "no token is requested for a session that cannot be made")
    }

    @Test("resume with a DPoP-bound token client and stored token_type DPoP sends Authorization: DPoP with a proof, never Bearer")
    func resumedDPoPTokens() async throws {
        let world = DPoPWorld()
        let binding = DPoPBinding(key: try DPoPKey.generate())
        let client = try DPoPSessionTests.client(world, dpop: binding)
        let store = InMemoryTokenStore(TokenResponse(accessToken: "AT-1", tokenType: "DPoP", refreshToken: "RT-1"))
        let session = try await AuthenticatedSession.resume(
            refresher: client,
            configuration: .init(
                allowedOrigins: [URL(string: "https://api.example")!], transport: world, store: store,
                proactiveRefreshMargin: nil))
        #expect(try await session.send(TransportRequest(url: DPoPSessionTests.api)).status == 200)
        let seen = try #require(world.seen.first)
        #expect(seen.authorization == "DPoP AT-1")
        #expect(seen.proof?["ath"]?.stringValue == DPoPKey.accessTokenHash("AT-1"))
        #expect(world.seen.allSatisfy { $0.authorization?.hasPrefix("Bearer") != true })
        // The public initializer, same rule.
        let direct = try AuthenticatedSession(
            tokens: TokenResponse(accessToken: "AT-1", tokenType: "DPoP", refreshToken: "RT-1"), refresher: client,
            configuration: .init(
                allowedOrigins: [URL(string: "https://api.example")!], transport: world,
                proactiveRefreshMargin: nil))
        #expect(try await direct.send(TransportRequest(url: DPoPSessionTests.api)).status == 200)
        #expect(world.seen.last?.authorization == "DPoP AT-1")
    }

    @Test("a DPoPSessionTransport made for fewer origins than the session's still never lets a DPoP token out as Bearer")
    func narrowDPoPTransport() async throws {
        let world = DPoPWorld()
        let binding = DPoPBinding(key: try DPoPKey.generate())
        let narrow = DPoPSessionTransport(binding: binding, transport: world, origins: [])
        let session = try AuthenticatedSession(
            tokens: TokenResponse(accessToken: "AT-1", tokenType: "DPoP", refreshToken: "RT-1"),
            refresher: CountingRefresher(api: ScriptedAPI(validToken: "x")),
            configuration: .init(
                allowedOrigins: [URL(string: "https://api.example")!], transport: narrow,
                proactiveRefreshMargin: nil))
        #expect(try await session.send(TransportRequest(url: DPoPSessionTests.api)).status == 200)
        #expect(world.seen.map(\.authorization) == ["DPoP AT-1"])
        #expect(world.seen.first?.proof?["ath"]?.stringValue == DPoPKey.accessTokenHash("AT-1"))
    }

    @Test("a DPoP token and no DPoP key anywhere: dpop_key_missing, nothing sent (no downgrade to Bearer)")
    func noKeyNoDowngrade() async throws {
        let api = ScriptedAPI(validToken: "AT-1")
        let tokens = TokenResponse(accessToken: "AT-1", tokenType: "DPoP", refreshToken: "RT-1")
        let session = try AuthenticatedSession(
            tokens: tokens, refresher: CountingRefresher(api: api),
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: nil))
        do {
            _ = try await session.send(TransportRequest(url: Fixtures.api))
            Issue.record("a DPoP-bound token was sent without a DPoP key")
        } catch let error as OIDCError {
            #expect(error.code == .dpopKeyMissing)
            #expect(!"\(error)".contains("AT-1"))
        }
        #expect(api.seenAuthorizations.isEmpty)
        // Requests to other origins are not affected.
        _ = try await session.send(TransportRequest(url: URL(string: "https://elsewhere.example/x")!))
        #expect(api.seenAuthorizations == [nil])
    }
}
