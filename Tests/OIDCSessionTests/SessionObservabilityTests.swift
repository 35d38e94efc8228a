import Foundation
import JOSE
import OIDC
import OIDCSession
import Testing

/// Keeps every event it is given (the session tests' own recorder).
final class SessionEventRecorder: OIDCObserver, Sendable {
    private let recorded = Locked<[OIDCEvent]>([])
    func record(_ event: OIDCEvent) { recorded.withLock { $0.append(event) } }
    var events: [OIDCEvent] { recorded.withLock { $0 } }
}

/// A coordinated store in which another replica has always refreshed first: it hands back `newer`.
struct RefreshedElsewhereStore: CoordinatedTokenStore {
    let newer: TokenResponse
    func save(_ tokens: TokenResponse) async throws {}
    func load() async throws -> TokenResponse? { newer }
    func clear() async throws {}
    func coordinatedRefresh(
        replacing stale: TokenResponse,
        _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult
    ) async throws -> CoordinatedRefreshResult {
        .alreadyRefreshed(newer)
    }
}

@Suite("Observability: session refresh, refresh awaited, logout")
struct SessionObservabilityTests {
    @Test("a 401 refreshes the session: one session.refresh event (grant refresh_token, timed, success)")
    func refreshAfter401() async throws {
        let observer = SessionEventRecorder()
        let api = ScriptedAPI(validToken: "AT-1")
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: CountingRefresher(api: api),
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: nil, observer: observer))
        api.accept("AT-NEW")  // the current token is refused from now on
        let response = try await session.send(TransportRequest(url: Fixtures.api))
        #expect(response.status == 200)
        let refresh = try #require(observer.events.count == 1 ? observer.events.first : nil)
        #expect(refresh.kind == .refresh && refresh.outcome == .success && refresh.grantType == "refresh_token" && refresh.duration != nil)
    }

    @Test("a refused refresh logs out: the refresh and the logout carry the cause's code (invalid_grant)")
    func loggedOut() async throws {
        let observer = SessionEventRecorder()
        let api = ScriptedAPI(validToken: "nothing")
        let refresher = ScriptedRefresher {
            .failure(OIDCError(.oauthError, "refused", oauthError: OAuthError(error: "invalid_grant"), httpStatus: 400))
        }
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: refresher,
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: nil, observer: observer))
        await #expect(throws: OIDCError.self) { try await session.send(TransportRequest(url: Fixtures.api)) }
        #expect(observer.events.map(\.kind) == [.refresh, .loggedOut])
        #expect(observer.events.map(\.outcome) == [.failure(code: "invalid_grant"), .failure(code: "invalid_grant")])
    }

    @Test("a coordinated store whose tokens another replica refreshed: session.refresh_awaited, nothing sent to the provider")
    func awaitedReplica() async throws {
        let observer = SessionEventRecorder()
        let api = ScriptedAPI(validToken: "AT-REPLICA")
        let refresher = CountingRefresher(api: api)
        let store = RefreshedElsewhereStore(newer: TokenResponse(accessToken: "AT-REPLICA", refreshToken: "RT-REPLICA"))
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: refresher,
            configuration: .init(
                allowedOrigins: [Fixtures.api], transport: api, store: store, proactiveRefreshMargin: nil,
                observer: observer))
        let response = try await session.send(TransportRequest(url: Fixtures.api))
        #expect(response.status == 200 && refresher.callCount == 0)
        #expect(observer.events.map(\.kind) == [.refreshAwaited, .refresh])
        #expect(observer.events.allSatisfy { $0.outcome == .success })
    }

    @Test("a resource server's DPoP nonce challenge: one dpop.nonce_retry event with the API's origin")
    func dpopNonceRetry() async throws {
        let observer = SessionEventRecorder()
        let world = DPoPWorld(requireNonce: "rs-1")
        let sender = DPoPSessionTransport(
            binding: DPoPBinding(key: try DPoPKey.generate()), transport: world,
            origins: [URL(string: "https://api.example")!], observer: observer)
        var request = TransportRequest(url: DPoPSessionTests.api)
        request.headers["Authorization"] = "Bearer AT-1"
        #expect(try await sender.send(request).status == 200)
        #expect(observer.events.map(\.kind) == [.dpopNonceRetry])
        #expect(observer.events.first?.origin == "https://api.example" && observer.events.first?.outcome == .success)
        #expect(try await sender.send(request).status == 200)  // the nonce is known now: no retry
        #expect(observer.events.count == 1)
    }

    @Test("OIDCClient.session: the client's configured observer sees the session's refresh and the refresh_token request")
    func clientSession() async throws {
        let observer = SessionEventRecorder()
        var metadata = ProviderMetadata(issuer: RefreshedIDTokenTests.issuer)
        metadata.authorizationEndpoint = URL(string: "https://op.example.com/authorize")
        metadata.tokenEndpoint = URL(string: "https://op.example.com/token")
        metadata.jwksURI = URL(string: "https://op.example.com/jwks")
        let provider = OIDCClientSessionTests.Provider(tokenAnswer: ["access_token": "AT-2", "token_type": "Bearer", "refresh_token": "RT-2"])
        var configuration = OIDCClient.Configuration(clock: { RefreshedIDTokenTests.now })
        configuration.observer = observer
        let client = try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: "app", secret: "SECRET-0042-0042"),
            transport: provider, configuration: configuration)
        let session = try await client.session(
            tokens: TokenResponse(accessToken: "AT-1", refreshToken: "RT-1"),
            configuration: .init(allowedOrigins: [Fixtures.api]))
        #expect(try await session.send(TransportRequest(url: Fixtures.api)).status == 200)
        #expect(observer.events.map(\.kind) == [.tokenRequest, .refresh])
        #expect(observer.events.map(\.grantType) == ["refresh_token", "refresh_token"])
        #expect(observer.events.first?.origin == "https://op.example.com")
        #expect(observer.events.allSatisfy { $0.outcome == .success })
    }

    @Test("no observer: the session behaves the same and records nothing anywhere")
    func noObserver() async throws {
        let api = ScriptedAPI(validToken: "AT-1")
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: CountingRefresher(api: api),
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: nil))
        api.accept("AT-NEW")
        #expect(try await session.send(TransportRequest(url: Fixtures.api)).status == 200)
    }
}
