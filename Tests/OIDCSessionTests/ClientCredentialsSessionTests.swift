import Foundation
import JOSE
import OIDC
import OIDCSession
import Testing

/// One transport for both sides: the token endpoint issues CC-1, CC-2, ... (counting grants)
/// and the API accepts only the newest token.
final class ServiceWorld: HTTPTransport, Sendable {
    static let tokenEndpoint = URL(string: "https://as.example/token")!
    static let api = URL(string: "https://api.example/v1/things")!
    private let state: Locked<(grants: Int, valid: String, expiresIn: Int, elsewhere: [String?])>
    /// Whether the token endpoint adds a `refresh_token` to its client-credentials answers (RFC 6749 §4.4.3 says it should not).
    let issuesRefreshToken: Bool
    private let apiCalls = Locked<[String?]>([])
    init(expiresIn: Int = 3600, issuesRefreshToken: Bool = false) {
        state = Locked((0, "", expiresIn, []))
        self.issuesRefreshToken = issuesRefreshToken
    }
    /// The Authorization header of every request to the API, in order.
    var authorizationsAtAPI: [String?] { apiCalls.withLock { $0 } }
    var grants: Int { state.withLock { $0.grants } }
    var authorizationsElsewhere: [String?] { state.withLock { $0.elsewhere } }
    func revokeCurrent() { state.withLock { $0.valid = "" } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if request.url == Self.tokenEndpoint {
            try await Task.sleep(nanoseconds: 20_000_000)
            let (token, expiresIn) = state.withLock { state -> (String, Int) in
                state.grants += 1
                state.valid = "CC-\(state.grants)"
                return (state.valid, state.expiresIn)
            }
            let refresh = issuesRefreshToken ? #","refresh_token":"RT-\#(token)""# : ""
            return TransportResponse(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Array(#"{"access_token":"\#(token)","token_type":"Bearer","expires_in":\#(expiresIn)\#(refresh)}"#.utf8))
        }
        await Task.yield()
        if request.url.host != ServiceWorld.api.host {
            state.withLock { $0.elsewhere.append(request.headers["Authorization"]) }
            return TransportResponse(status: 200)
        }
        apiCalls.withLock { $0.append(request.headers["Authorization"]) }
        let ok = state.withLock { request.headers["Authorization"] == "Bearer " + $0.valid }
        return TransportResponse(status: ok ? 200 : 401, headers: ok ? [:] : ["WWW-Authenticate": #"Bearer error="invalid_token""#])
    }
}

@Suite("AuthenticatedSession over client credentials")
struct ClientCredentialsSessionTests {
    func session(_ world: ServiceWorld, clock: @escaping @Sendable () -> Date = { Date() }) async throws
        -> (AuthenticatedSession, ClientCredentialsTokenSource)
    {
        let client = try TokenClient(
            tokenEndpoint: ServiceWorld.tokenEndpoint, authentication: .clientSecretBasic(clientID: "svc", secret: "s"),
            transport: world, clock: clock)
        let source = ClientCredentialsTokenSource(client: client, scope: "api.read")
        return (
            try await AuthenticatedSession.clientCredentials(
                source,
                configuration: .init(allowedOrigins: [ServiceWorld.api], transport: world, clock: clock)), source
        )
    }

    @Test("calls carry the client's token; a 401 makes one new grant shared by 50 concurrent calls, each retried once")
    func renewalOn401() async throws {
        let world = ServiceWorld()
        let (session, source) = try await session(world)
        #expect(try await session.send(TransportRequest(url: ServiceWorld.api)).status == 200)
        #expect(world.grants == 1)
        world.revokeCurrent()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { try await session.send(TransportRequest(url: ServiceWorld.api)).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 200 })
        #expect(world.grants == 2)
        #expect(try await source.accessToken() == "CC-2")  // the source and the session agree
        #expect(await session.currentTokens?.refreshToken == nil, "no refresh token, real or marker, is held")
    }

    @Test("no store ever holds a refresh token for a client-credentials session, even from a provider that sends one; a 401 renews once")
    func storeNeverHoldsRefreshToken() async throws {
        let world = ServiceWorld(issuesRefreshToken: true)
        let store = RecordingTokenStore()
        let client = try TokenClient(
            tokenEndpoint: ServiceWorld.tokenEndpoint, authentication: .clientSecretBasic(clientID: "svc", secret: "s"),
            transport: world)
        let source = ClientCredentialsTokenSource(client: client, scope: "api.read")
        let session = try await AuthenticatedSession.clientCredentials(
            source,
            configuration: .init(
                allowedOrigins: [ServiceWorld.api],
                store: store))
        #expect(try await session.send(TransportRequest(url: ServiceWorld.api)).status == 200)
        world.revokeCurrent()
        #expect(try await session.send(TransportRequest(url: ServiceWorld.api)).status == 200)
        #expect(world.grants == 2, "one new grant for the 401")
        #expect(await session.refreshes == 1)
        #expect(world.authorizationsAtAPI == ["Bearer CC-1", "Bearer CC-1", "Bearer CC-2"], "the refused call retried once, with the new token")
        let saved = store.saved
        #expect(saved.map(\.accessToken) == ["CC-1", "CC-2"])
        #expect(saved.allSatisfy { $0.refreshToken == nil }, "stored: \(saved.map { $0.refreshToken ?? "-" })")
        #expect(try await store.load()?.refreshToken == nil)
    }

    @Test("the token is not sent to other origins")
    func otherOrigins() async throws {
        let world = ServiceWorld()
        let (session, _) = try await session(world)
        #expect(try await session.send(TransportRequest(url: URL(string: "https://elsewhere.example/x")!)).status == 200)
        #expect(world.authorizationsElsewhere == [nil])
        #expect(world.grants == 1)
    }

    @Test("a token shorter than the source's margin (30 s < 60 s) is reused for half its life, then renewed once")
    func shortTokenNotRenewedPerRequest() async throws {
        let world = ServiceWorld(expiresIn: 30)
        let now = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        let (session, source) = try await session(world, clock: { now.withLock { $0 } })
        for _ in 0..<5 { #expect(try await session.send(TransportRequest(url: ServiceWorld.api)).status == 200) }
        #expect(world.grants == 1)
        now.withLock { $0 = $0.addingTimeInterval(16) }  // within 15 s of expiry: renew once
        for _ in 0..<3 { #expect(try await session.send(TransportRequest(url: ServiceWorld.api)).status == 200) }
        #expect(world.grants == 2)
        #expect(await source.requestCount == 2)
    }

    @Test("a client with a DPoP binding: DPoP-bound service tokens go out as Authorization: DPoP with a proof, never Bearer")
    func dpopBound() async throws {
        let world = DPoPWorld()
        let client = try TokenClient(
            tokenEndpoint: URL(string: "https://as.example/token")!, issuer: "https://as.example",
            authentication: .clientSecretBasic(clientID: "svc", secret: "s"), transport: world,
            dpop: DPoPBinding(key: try DPoPKey.generate()))
        let source = ClientCredentialsTokenSource(client: client, scope: "api.read")
        let api = URL(string: "https://api.example/data")!
        let session = try await AuthenticatedSession.clientCredentials(
            source,
            configuration: .init(allowedOrigins: [api], transport: world))
        #expect(try await session.send(TransportRequest(url: api)).status == 200)
        let calls = world.seen.filter { $0.url.host == "api.example" }
        #expect(calls.count == 1)
        #expect(calls.first?.authorization == "DPoP AT-2" && calls.first?.proof?["ath"]?.stringValue == DPoPKey.accessTokenHash("AT-2"))
        #expect(!world.seen.contains { $0.authorization?.lowercased().hasPrefix("bearer") == true })
    }
}

/// A token store that keeps every saved value, in order.
final class RecordingTokenStore: TokenStore, Sendable {
    private let state = Locked<(saved: [TokenResponse], current: TokenResponse?)>(([], nil))
    var saved: [TokenResponse] { state.withLock { $0.saved } }
    func save(_ tokens: TokenResponse) async throws {
        state.withLock {
            $0.saved.append(tokens); $0.current = tokens
        }
    }
    func load() async throws -> TokenResponse? { state.withLock { $0.current } }
    func clear() async throws { state.withLock { $0.current = nil } }
}
