import Foundation
import OIDC
import OIDCSession
import Testing

/// Only a dead grant logs out; other failures keep the tokens, back off, and fall back to a valid token.
@Suite("AuthenticatedSession: refresh failures")
struct RefreshFailureTests {
    @Test(
        "a refusal other than invalid_grant fails the request with refresh_rejected and keeps the tokens",
        arguments: ["invalid_client", "unauthorized_client", "invalid_scope", "unsupported_grant_type"])
    func otherRefusalsKeepTokens(_ code: String) async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let store = InMemoryTokenStore(Fixtures.start)
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: ScriptedRefresher { .failure(.refused(code)) },
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, store: store, proactiveRefreshMargin: nil))
        await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: {
            let error = $0 as? OIDCError
            return error?.code == .refreshRejected && error?.oauthError?.error == code
        }
        #expect(await session.currentTokens?.refreshToken == "RT-1")
        #expect(await store.load()?.refreshToken == "RT-1")
    }

    @Test("invalid_grant still logs out")
    func invalidGrantLogsOut() async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let store = InMemoryTokenStore(Fixtures.start)
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: ScriptedRefresher { .failure(.refused("invalid_grant")) },
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, store: store, proactiveRefreshMargin: nil))
        await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.code == .loggedOut }
        #expect(await session.currentTokens == nil)
        #expect(await store.load() == nil)
    }

    @Test("after a failed refresh, 401s within the back-off start no new refresh; after it, one does")
    func backoff() async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let clock = ManualClock()
        let refresher = ScriptedRefresher { .failure(OIDCError(.transport, "down", transportError: .timedOut)) }
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: refresher,
            configuration: .init(
                allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: nil, refreshBackoff: 30,
                clock: clock.read))
        for _ in 0..<5 {
            await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.code == .refreshFailed }
        }
        #expect(refresher.callCount == 1)
        clock.advance(31)
        await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.code == .refreshFailed }
        #expect(refresher.callCount == 2)
        try await session.inject(TokenResponse(accessToken: "AT-5", refreshToken: "RT-5"))  // new tokens: no back-off
        await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.code == .refreshFailed }
        #expect(refresher.callCount == 3)
    }

    @Test("a failed proactive refresh sends with the current token while it is still valid")
    func proactiveFallback() async throws {
        let clock = ManualClock()
        let api = ScriptedAPI(validToken: "AT-1")
        let refresher = ScriptedRefresher { .failure(OIDCError(.transport, "down", transportError: .timedOut)) }
        let expiring = TokenResponse(accessToken: "AT-1", expiresAt: clock.now.addingTimeInterval(20), refreshToken: "RT-1")
        let session = try AuthenticatedSession(
            tokens: expiring, refresher: refresher,
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: 60, clock: clock.read))
        #expect(try await session.send(TransportRequest(url: Fixtures.api)).status == 200)
        #expect(try await session.send(TransportRequest(url: Fixtures.api)).status == 200)  // in the back-off: no second refresh
        #expect(refresher.callCount == 1)
        #expect(api.seenAuthorizations == ["Bearer AT-1", "Bearer AT-1"])
        clock.advance(21)  // now expired: the failure is the request's
        await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.code == .refreshFailed }
        // The first failure did not fail its request, yet it is reported, typed, with its cause.
        session.finishEvents()
        var failures: [OIDCError] = []
        for await event in session.events { if case .refreshFailed(let error) = event { failures.append(error) } }
        #expect(failures.map(\.code) == [.refreshFailed, .refreshFailed])
        #expect(failures.first?.transportError == .timedOut)
    }

    @Test("a proactive refresh refused with invalid_grant still logs out")
    func proactiveLogout() async throws {
        let clock = ManualClock()
        let api = ScriptedAPI(validToken: "AT-1")
        let expiring = TokenResponse(accessToken: "AT-1", expiresAt: clock.now.addingTimeInterval(20), refreshToken: "RT-1")
        let session = try AuthenticatedSession(
            tokens: expiring, refresher: ScriptedRefresher { .failure(.refused("invalid_grant")) },
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: 60, clock: clock.read))
        await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.code == .loggedOut }
        #expect(api.seenAuthorizations.isEmpty)
    }
}
