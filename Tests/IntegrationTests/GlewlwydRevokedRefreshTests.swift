import Foundation
import JOSE
import OIDC
import OIDCSession
import Testing

extension GlewlwydSerial {
    /// glewlwyd 2.7.5 answers a refresh with a revoked refresh token with HTTP 400 and an empty body: the session
    /// reads it as a dead grant (logged out), not as a passing failure that keeps the tokens.
    @Suite("glewlwyd: a refresh refused with an empty 400 ends the session", .enabled(if: Glewlwyd.isRunning), .serialized)
    struct GlewlwydRevokedRefreshTests {
        @Test("the refresh token revoked (RFC 7009), the next refresh gets an empty 400: logged out, tokens and store cleared, never tried again")
        func revokedRefreshTokenLogsOut() async throws {
            let (_, tokens) = try await Glewlwyd.login()
            let refreshToken = try #require(tokens.refreshToken)
            let metadata = try await Glewlwyd.metadata()
            let counting = CountingTransport(Glewlwyd.transport)
            let client = try await Glewlwyd.client("SECRET", transport: counting)
            try await client.revoke(refreshToken, hint: "refresh_token", endpoint: try #require(metadata.revocationEndpoint))

            // The session's tokens: the access token refused by UserInfo (so the session refreshes), the revoked refresh token.
            let userinfo = try #require(metadata.userinfoEndpoint)
            var stale = tokens
            stale.accessToken = "an-access-token-the-provider-refuses"
            let store = InMemoryTokenStore(stale)
            let session = try AuthenticatedSession(
                tokens: stale, refresher: client,
                configuration: .init(
                    allowedOrigins: [userinfo], transport: counting, store: store,
                    refreshedIDTokens: .discardIDTokens, proactiveRefreshMargin: nil))
            let tokenCalls = counting.count(path: "/token"), userinfoCalls = counting.count(path: "/userinfo")
            let refused = await #expect(throws: OIDCError.self) { _ = try await session.send(TransportRequest(url: userinfo)) }
            #expect(refused?.code == .loggedOut, "\(String(describing: refused))")
            // What glewlwyd sent: HTTP 400 with no OAuth error (the shape this test is about).
            #expect(refused?.httpStatus == 400 && refused?.oauthError == nil, "\(String(describing: refused))")
            #expect(counting.count(path: "/token") == tokenCalls + 1 && counting.count(path: "/userinfo") == userinfoCalls + 1)
            #expect(await session.currentTokens == nil)
            #expect(await store.load() == nil)
            session.finishEvents()
            var events: [SessionEvent] = []
            for await event in session.events { events.append(event) }
            guard events.count == 1, case .loggedOut(let error) = events[0] else {
                Issue.record("expected one logged-out event, got \(events)")
                return
            }
            #expect(error.httpStatus == 400)
            // The next request does not try the dead tokens again: nothing reaches UserInfo or the token endpoint.
            let next = await #expect(throws: OIDCError.self) { _ = try await session.send(TransportRequest(url: userinfo)) }
            #expect(next?.code == .notAuthenticated)
            #expect(counting.count(path: "/token") == tokenCalls + 1 && counting.count(path: "/userinfo") == userinfoCalls + 1)
        }
    }
}
