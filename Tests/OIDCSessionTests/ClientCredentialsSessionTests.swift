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
    init(expiresIn: Int = 3600) { state = Locked((0, "", expiresIn, [])) }
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
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"],
                                body: Array(#"{"access_token":"\#(token)","token_type":"Bearer","expires_in":\#(expiresIn)}"#.utf8))
        }
        await Task.yield()
        if request.url.host != ServiceWorld.api.host {
            state.withLock { $0.elsewhere.append(request.headers["Authorization"]) }
            return TransportResponse(status: 200)
        }
        let ok = state.withLock { request.headers["Authorization"] == "Bearer " + $0.valid }
        return TransportResponse(status: ok ? 200 : 401, headers: ok ? [:] : ["WWW-Authenticate": #"Bearer error="invalid_token""#])
    }
}

@Suite("AuthenticatedSession over client credentials")
struct ClientCredentialsSessionTests {
    func session(_ world: ServiceWorld, clock: @escaping @Sendable () -> Date = { Date() }) async throws
        -> (AuthenticatedSession, ClientCredentialsTokenSource) {
        let client = try TokenClient(tokenEndpoint: ServiceWorld.tokenEndpoint, authentication: .clientSecretBasic(clientID: "svc", secret: "s"),
                                 transport: world, clock: clock)
        let source = ClientCredentialsTokenSource(client: client, scope: "api.read")
        return (try await AuthenticatedSession.clientCredentials(source: source, transport: world, allowedOrigins: [ServiceWorld.api],
                                                                 clock: clock), source)
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
        #expect(await session.currentTokens?.refreshToken == ClientCredentialsRenewal.marker)
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
        let client = try TokenClient(tokenEndpoint: URL(string: "https://as.example/token")!, issuer: "https://as.example",
                                     authentication: .clientSecretBasic(clientID: "svc", secret: "s"), transport: world,
                                     dpop: DPoPBinding(key: try DPoPKey.generate()))
        let source = ClientCredentialsTokenSource(client: client, scope: "api.read")
        let api = URL(string: "https://api.example/data")!
        let session = try await AuthenticatedSession.clientCredentials(source: source, transport: world, allowedOrigins: [api])
        #expect(try await session.send(TransportRequest(url: api)).status == 200)
        let calls = world.seen.filter { $0.url.host == "api.example" }
        #expect(calls.count == 1)
        #expect(calls.first?.authorization == "DPoP AT-2" && calls.first?.proof?["ath"]?.stringValue == DPoPKey.accessTokenHash("AT-2"))
        #expect(!world.seen.contains { $0.authorization?.lowercased().hasPrefix("bearer") == true })
    }
}
