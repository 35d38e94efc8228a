import Foundation
import OIDC
import OIDCSession
import Testing

/// Issue 22's session items: the proactive margin capped at half the token's lifetime for user sessions,
/// and a logout event that names its cause.
@Suite("Session options")
struct SessionOptionsTests {
    @Test("a 30 s user token under the default 30 s margin is reused for its first half, then renewed once")
    func marginAtMostHalfLifetime() async throws {
        let clock = ManualClock()
        let api = ScriptedAPI(validToken: "AT-1")
        let refresher = ScriptedRefresher {
            .success(TokenResponse(accessToken: "AT-1", expiresIn: 30, refreshToken: "RT-2"))
        }
        let short = TokenResponse(accessToken: "AT-1", expiresIn: 30, expiresAt: clock.now.addingTimeInterval(30), refreshToken: "RT-1")
        let session = try AuthenticatedSession(
            tokens: short, refresher: refresher,
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: 30, clock: clock.read))
        for _ in 0..<3 { #expect(try await session.send(TransportRequest(url: Fixtures.api)).status == 200) }
        clock.advance(10)
        #expect(try await session.send(TransportRequest(url: Fixtures.api)).status == 200)
        #expect(refresher.callCount == 0, "a 30 s margin on a 30 s token renewed it before every request")
        clock.advance(6)  // 16 s in: within half the lifetime of the end
        #expect(try await session.send(TransportRequest(url: Fixtures.api)).status == 200)
        #expect(refresher.callCount == 1)
    }

    @Test(
        "the logout event names its cause",
        arguments: [
            ("refresh_token_spent", "logged out: refresh_token_spent"),
            ("invalid_grant", "logged out: invalid_grant"),
        ])
    func logoutCause(_ failure: String, _ expected: String) async throws {
        let api = ScriptedAPI(validToken: "AT-0")  // AT-1 is refused: the session refreshes
        let error =
            failure == "invalid_grant"
            ? OIDCError.refused("invalid_grant")
            : OIDCError(.refreshTokenSpent, "the refresh answer rotated the refresh token and was refused: id_token_invalid")
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: ScriptedRefresher { .failure(error) },
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: nil))
        await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.code == .loggedOut }
        session.finishEvents()
        var descriptions: [String] = []
        for await event in session.events { descriptions.append(event.description) }
        #expect(descriptions == [expected])
    }

    @Test("without a refresh token the logout event says so")
    func noRefreshTokenCause() async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let session = try AuthenticatedSession(
            tokens: TokenResponse(accessToken: "AT-1"), refresher: ScriptedRefresher { .failure(.refused("x")) },
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: nil))
        await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.cause == .noRefreshToken }
        session.finishEvents()
        var descriptions: [String] = []
        for await event in session.events { descriptions.append(event.description) }
        #expect(descriptions == ["logged out: no_refresh_token"])
    }
}
