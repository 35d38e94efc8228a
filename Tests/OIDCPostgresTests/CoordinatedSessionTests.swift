import Foundation
import OIDC
import OIDCPostgres
import OIDCSession
import Testing

/// A provider with refresh-token rotation and reuse detection: a refresh token works once;
/// presenting a rotated-out one revokes the whole family (as django-oauth-toolkit does).
final class RotatingProvider: TokenRefresher, HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var access: String? = "AT-0", refresh: String? = "RT-0", issued = 0, calls = 0

    var refreshCalls: Int { lock.withLock { calls } }
    var familyRevoked: Bool { lock.withLock { refresh == nil } }

    func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        try await Task.sleep(nanoseconds: 20_000_000)
        return try lock.withLock {
            calls += 1
            guard refreshToken == refresh else {
                access = nil
                refresh = nil  // reuse detected: the family is revoked
                throw OIDCError(.oauthError, "refused", oauthError: OAuthError(error: "invalid_grant"), httpStatus: 400)
            }
            issued += 1
            access = "AT-\(issued)"
            refresh = "RT-\(issued)"
            return TokenResponse(accessToken: "AT-\(issued)", refreshToken: "RT-\(issued)")
        }
    }

    /// The API: 200 for the current access token, else 401.
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        await Task.yield()
        let valid = lock.withLock { access.map { "Bearer " + $0 } }
        return TransportResponse(status: request.headers["Authorization"] == valid ? 200 : 401)
    }

    /// Expires the current access token (the API refuses it from now on).
    func expireAccessToken() { lock.withLock { access = "expired" } }
}

/// A shared store of one kind, for several sessions (each with its own store instance, as replicas have).
enum SharedStoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case file, postgres
    var testDescription: String { rawValue }

    /// The kinds this run can test: PostgreSQL only with PG_URL.
    static var available: [SharedStoreKind] { TestDatabase.isRunning ? [.file, .postgres] : [.file] }

    /// `count` store instances on one shared location (file path or table row), and a cleanup.
    func makeStores(_ count: Int) async throws -> (stores: [any CoordinatedTokenStore], cleanup: @Sendable () -> Void) {
        switch self {
        case .file:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).json").path
            return (
                (0..<count).map { _ in FileTokenStore(path: path) },
                {
                    try? FileManager.default.removeItem(atPath: path)
                    try? FileManager.default.removeItem(atPath: path + ".lock")
                }
            )
        case .postgres:
            let table = try TestDatabase.uniqueTable("session")
            let pools = try (0..<count).map { _ in try TestDatabase.open(connections: 2) }
            let stores = try pools.map { try PostgresTokenStore(database: $0, key: "alice", table: table) }
            try await stores[0].createTable()
            return (stores, { for pool in pools { pool.close() } })
        }
    }
}

@Suite("AuthenticatedSession over a CoordinatedTokenStore (file; PostgreSQL with PG_URL)")
struct CoordinatedSessionTests {
    static let api = URL(string: "https://api.example.com/me")!

    func sessions(_ stores: [any CoordinatedTokenStore], _ provider: RotatingProvider) async throws -> [AuthenticatedSession] {
        var sessions: [AuthenticatedSession] = []
        for store in stores {
            sessions.append(
                try await AuthenticatedSession.resume(
                    refresher: provider,
                    configuration: .init(
                        allowedOrigins: [URL(string: "https://api.example.com")!], transport: provider,
                        store: store, proactiveRefreshMargin: nil)))
        }
        return sessions
    }

    @Test(
        "4 sessions with their own store instances, 50 requests each after expiry: 1 refresh, all 200",
        arguments: SharedStoreKind.available)
    func shared(_ kind: SharedStoreKind) async throws {
        let (stores, cleanup) = try await kind.makeStores(4)
        defer { cleanup() }
        let provider = RotatingProvider()
        try await stores[0].save(TokenResponse(accessToken: "AT-0", refreshToken: "RT-0"))
        let sessions = try await sessions(stores, provider)
        provider.expireAccessToken()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for session in sessions {
                for _ in 0..<50 { group.addTask { try await session.send(TransportRequest(url: Self.api)).status } }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(provider.refreshCalls == 1)
        #expect(!provider.familyRevoked)
        #expect(statuses.allSatisfy { $0 == 200 } && statuses.count == 200)
        #expect(try await stores[3].load()?.refreshToken == "RT-1")
    }

    @Test(
        "a refused coordinated refresh logs out every session once; the provider sees one refresh",
        arguments: SharedStoreKind.available)
    func refusedForEveryone(_ kind: SharedStoreKind) async throws {
        let (stores, cleanup) = try await kind.makeStores(3)
        defer { cleanup() }
        let provider = RotatingProvider()
        // The stored refresh token is already rotated away: the provider refuses it.
        try await stores[0].save(TokenResponse(accessToken: "AT-0", refreshToken: "RT-stale"))
        let sessions = try await sessions(stores, provider)
        provider.expireAccessToken()
        let codes = await withTaskGroup(of: OIDCError.Code?.self) { group in
            for session in sessions {
                for _ in 0..<10 {
                    group.addTask {
                        do { _ = try await session.send(TransportRequest(url: Self.api)); return nil } catch {
                            return (error as? OIDCError)?.code
                        }
                    }
                }
            }
            return await group.reduce(into: [OIDCError.Code?]()) { $0.append($1) }
        }
        #expect(provider.refreshCalls == 1)
        // A request whose task starts after its session logged out finds no tokens: not_authenticated.
        #expect(codes.allSatisfy { $0 == .loggedOut || $0 == .notAuthenticated }, "\(codes)")
        #expect(codes.contains(.loggedOut))
        for session in sessions { #expect(await session.currentTokens == nil) }
        #expect(try await stores[0].load() == nil)
    }
}

/// A coordinated store whose writes fail: the refresh step runs, storing its result does not.
actor UnwritableStore: CoordinatedTokenStore {
    private var tokens: TokenResponse? = TokenResponse(accessToken: "AT-0", refreshToken: "RT-0")
    func save(_ tokens: TokenResponse) async throws { throw OIDCError(.tokenStoreFailure, "read-only") }
    func load() async throws -> TokenResponse? { tokens }
    func clear() async throws { throw OIDCError(.tokenStoreFailure, "read-only") }
    func coordinatedRefresh(replacing stale: TokenResponse, _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult)
        async throws -> CoordinatedRefreshResult
    {
        guard let tokens else { return .loggedOut(nil) }
        switch try await refresh(tokens) {
        case .refreshed(let fresh): return .refreshedNotStored(fresh, OIDCError(.tokenStoreFailure, "read-only"))
        case .refused(let error): return .loggedOut(error)
        }
    }
}

@Suite("AuthenticatedSession when a coordinated store cannot keep a refresh")
struct UnwritableCoordinatedStoreTests {
    @Test("the request succeeds with the issued tokens and the failure is a storeFailed event")
    func storeFailedEvent() async throws {
        let provider = RotatingProvider()
        let session = try await AuthenticatedSession.resume(
            refresher: provider,
            configuration: .init(
                allowedOrigins: [URL(string: "https://api.example.com")!], transport: provider,
                store: UnwritableStore(), proactiveRefreshMargin: nil))
        provider.expireAccessToken()
        let response = try await session.send(TransportRequest(url: CoordinatedSessionTests.api))
        #expect(response.status == 200)
        #expect(await session.currentTokens?.accessToken == "AT-1")
        session.finishEvents()
        var events: [String] = []
        for await event in session.events { events.append("\(event)") }
        #expect(events == ["tokens refreshed", "token store failed: token_store_failure"])
        #expect(provider.refreshCalls == 1)
    }
}
