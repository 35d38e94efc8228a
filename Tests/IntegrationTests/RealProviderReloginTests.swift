import Foundation
import OIDC
import OIDCNetworking
import OIDCSession
import Testing

extension RealProviderTests {
    /// django-oauth-toolkit sets a refreshed ID Token's `auth_time` to the user's **last** login: after the
    /// same user logs in again anywhere, every earlier session's refresh carries the later time. The session
    /// accepts that (`auth_time` may move forward, OpenID Connect Core §12.2 otherwise strict) and keeps it.
    @Suite("A second login of the same user does not end the first session", .serialized)
    struct Relogin {
        @Test("login → a second login of alice → the first session refreshes (later auth_time kept) → refresh token revoked → logged out")
        func secondLoginThenRefresh() async throws {
            let client = try await RealProviderTests.Client.client()
            let userinfo = try #require(client.metadata.userinfoEndpoint)
            let (pending, redirect) = try await RealProviderTests.Client.login(client)
            let first = try await client.finishLogin(pending, callback: .url(redirect))
            let firstAuthTime = try #require(first.idToken.authTime)
            // auth_time has a resolution of one second: wait for the clock to pass it (a deadline, not a fixed
            // sleep), so the second login is reported with a later auth_time.
            while Date() < firstAuthTime.addingTimeInterval(1.2) { try await Task.sleep(nanoseconds: 50_000_000) }
            let (pending2, redirect2) = try await RealProviderTests.Client.login(client)
            let second = try await client.finishLogin(pending2, callback: .url(redirect2))
            let secondAuthTime = try #require(second.idToken.authTime)
            try #require(secondAuthTime > firstAuthTime, "the second login must have a later auth_time for this test to mean anything")

            // The first session's next refresh: proactive, its access token marked as expiring now (the
            // margin is at most half the token's lifetime, so only an expiring token is refreshed early).
            let store = InMemoryTokenStore()
            var firstTokens = first.tokens
            firstTokens.expiresAt = Date()
            let session = try await client.session(
                tokens: firstTokens,
                configuration: .init(allowedOrigins: [userinfo], store: store, proactiveRefreshMargin: 7200))
            #expect(try await session.send(TransportRequest(url: userinfo)).status == 200)
            #expect(await session.refreshes == 1)
            let refreshed = try #require(await session.currentTokens)
            let refreshedIDToken = try IDToken(try #require(refreshed.idToken))
            #expect(refreshedIDToken.authTime == secondAuthTime, "the provider reports the latest login; the session keeps it")
            #expect(refreshedIDToken.subject == first.idToken.subject)
            #expect(await store.load()?.idToken == refreshed.idToken)

            // A later refresh is compared with the kept (later) ID Token and passes too.
            var expiring = refreshed
            expiring.expiresAt = Date()
            try await session.inject(expiring)
            #expect(try await session.send(TransportRequest(url: userinfo)).status == 200)
            #expect(await session.refreshes == 2)

            // The second session is unaffected: its own refresh works through the client.
            let secondRefreshed = try await client.refresh(second.tokens)
            #expect(try IDToken(try #require(secondRefreshed.idToken)).authTime == secondAuthTime)

            // Revoke the first session's refresh token: its next refresh is invalid_grant → logged out.
            let current = try #require(await session.currentTokens)
            let tokenClient = try TokenClient(
                tokenEndpoint: try #require(client.metadata.tokenEndpoint), authentication: client.authentication,
                transport: Provider.transport)
            try await tokenClient.revoke(
                try #require(current.refreshToken), hint: "refresh_token",
                endpoint: try Provider.revocationEndpoint(client.metadata))
            await expectOIDCError(.loggedOut) { _ = try await session.send(TransportRequest(url: userinfo)) }
            #expect(await store.load() == nil)
        }
    }
}
