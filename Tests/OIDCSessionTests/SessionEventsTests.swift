import Foundation
import OIDC
import OIDCSession
import Testing

/// The event stream ends, and store failures reach the caller.
@Suite("AuthenticatedSession: events and store failures")
struct SessionEventsTests {
    @Test("a for-await over events ends after finishEvents()", .timeLimit(.minutes(1)))
    func finishEnds() async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: CountingRefresher(api: api),
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: nil))
        let listener = Task {
            var seen: [String] = []
            for await event in session.events { seen.append(event.description) }
            return seen
        }
        _ = try await session.send(TransportRequest(url: Fixtures.api))
        session.finishEvents()
        #expect(await listener.value == ["tokens refreshed"])
    }

    @Test("a for-await over events ends when the session goes away", .timeLimit(.minutes(1)))
    func deinitEnds() async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        var session: AuthenticatedSession? = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: CountingRefresher(api: api),
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: nil))
        let events = try #require(session?.events)
        let listener = Task {
            var count = 0
            for await _ in events { count += 1 }
            return count
        }
        _ = try await session?.send(TransportRequest(url: Fixtures.api))
        session = nil
        #expect(await listener.value == 1)
    }

    @Test("a failed save of refreshed tokens is reported as an event; the request still succeeds")
    func saveFailureIsReported() async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: CountingRefresher(api: api),
            configuration: .init(
                allowedOrigins: [Fixtures.api], transport: api, store: FailingStore(),
                proactiveRefreshMargin: nil))
        #expect(try await session.send(TransportRequest(url: Fixtures.api)).status == 200)
        session.finishEvents()
        var failures: [OIDCError] = []
        for await event in session.events { if case .storeFailed(let error) = event { failures.append(error) } }
        #expect(failures.map(\.code) == [.tokenStoreFailure])
        await #expect { try await session.inject(Fixtures.start) } throws: { ($0 as? OIDCError)?.code == .tokenStoreFailure }
    }

    @Test("a failed clear after a logout is reported as an event")
    func clearFailureIsReported() async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: CountingRefresher(api: api, mode: .refuse),
            configuration: .init(
                allowedOrigins: [Fixtures.api], transport: api, store: FailingStore(),
                proactiveRefreshMargin: nil))
        await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.code == .loggedOut }
        session.finishEvents()
        var names: [String] = []
        for await event in session.events { names.append(event.description) }
        #expect(names == ["logged out: invalid_grant", "token store failed: token_store_failure"])
    }
}
