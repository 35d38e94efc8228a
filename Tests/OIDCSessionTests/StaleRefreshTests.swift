import Foundation
import OIDC
import OIDCSession
import Testing

/// A refresh's result or logout applies only to the tokens it started from.
@Suite("AuthenticatedSession: stale refresh results")
struct StaleRefreshTests {
    static let newLogin = TokenResponse(accessToken: "AT-new-login", refreshToken: "RT-new-login")

    /// Starts a request that gets a 401 and parks in the refresh; returns it once the refresh is in flight.
    func requestInRefresh(_ session: AuthenticatedSession, _ refresher: GatedRefresher) async -> Task<Result<Int, OIDCError>, Never> {
        var entered = refresher.entered.makeAsyncIterator()
        let request = Task { () -> Result<Int, OIDCError> in
            do { return .success(try await session.send(TransportRequest(url: Fixtures.api)).status) } catch {
                return .failure(error as? OIDCError ?? OIDCError(.refreshFailed, "\(error)"))
            }
        }
        await entered.next()
        return request
    }

    @Test("tokens injected during a refresh win over its result, in memory and in the store")
    func injectedWinsOverSuccess() async throws {
        let api = ScriptedAPI(validToken: "AT-new-login")  // AT-1 is refused
        let refresher = GatedRefresher()
        let store = InMemoryTokenStore(Fixtures.start)
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: refresher,
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, store: store, proactiveRefreshMargin: nil))
        let request = await requestInRefresh(session, refresher)
        try await session.inject(Self.newLogin)
        refresher.complete(.success(TokenResponse(accessToken: "AT-stale-refresh", refreshToken: "RT-stale-refresh")))
        #expect(try await request.value.get() == 200)
        #expect(await session.currentTokens?.accessToken == "AT-new-login")
        #expect(await session.currentTokens?.refreshToken == "RT-new-login")
        #expect(await store.load()?.accessToken == "AT-new-login")
        #expect(await session.refreshes == 0)
        #expect(api.seenAuthorizations == ["Bearer AT-1", "Bearer AT-new-login"])
    }

    @Test("a stale refresh that is refused does not log out the new login nor clear the store")
    func staleRefusalKeepsNewLogin() async throws {
        let api = ScriptedAPI(validToken: "AT-new-login")
        let refresher = GatedRefresher()
        let store = InMemoryTokenStore(Fixtures.start)
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: refresher,
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, store: store, proactiveRefreshMargin: nil))
        let request = await requestInRefresh(session, refresher)
        try await session.inject(Self.newLogin)
        refresher.complete(.failure(.refused("invalid_grant")))
        #expect(try await request.value.get() == 200)
        #expect(await session.currentTokens?.accessToken == "AT-new-login")
        #expect(await store.load()?.refreshToken == "RT-new-login")
        session.finishEvents()
        var events: [String] = []
        for await event in session.events { events.append(event.description) }
        #expect(events.isEmpty)
    }

    @Test("a 401 on the new login while a stale refresh runs waits for it, then refreshes the new login")
    func newLoginRefreshesAfterStale() async throws {
        let api = ScriptedAPI(validToken: "AT-from-new-grant")
        let refresher = GatedRefresher()
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: refresher,
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: nil))
        let first = await requestInRefresh(session, refresher)
        try await session.inject(Self.newLogin)
        let second = Task { try await session.send(TransportRequest(url: Fixtures.api)).status }
        refresher.complete(.failure(.refused("invalid_grant")))  // the stale one
        // The second refresh (from the new login) starts — unless the second request already ended.
        // (Two watchers feed one stream: a task group would wait for the loser, which waits for this test.)
        let (signals, signal) = AsyncStream.makeStream(of: Bool.self)
        Task {
            var entered = refresher.entered.makeAsyncIterator()
            if await entered.next() != nil { signal.yield(true) }
        }
        Task {
            _ = await second.result
            signal.yield(false)
        }
        var firstSignal = signals.makeAsyncIterator()
        let refreshedAgain = await firstSignal.next() ?? false
        guard refreshedAgain else {
            Issue.record("the second request ended without a refresh of the new login: \(await second.result)")
            return
        }
        refresher.complete(.success(TokenResponse(accessToken: "AT-from-new-grant")))
        #expect(try await second.value == 200)
        #expect((try? await first.value.get()) != nil)  // 200 or 401 by timing; never logged out
        #expect(refresher.callCount == 2)
        #expect(await session.currentTokens?.refreshToken == "RT-new-login")
    }
}
