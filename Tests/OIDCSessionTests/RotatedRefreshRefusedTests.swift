import Foundation
import JOSE
import OIDC
import OIDCSession
import Testing

/// A refresh answer that our checks refuse, after the provider rotated the refresh token:
/// the refresh token sent is spent, so the session logs out instead of replaying it.
@Suite("AuthenticatedSession: refused answer with a rotated refresh token")
struct RotatedRefreshRefusedTests {
    typealias Fixture = RefreshedIDTokenTests

    static func original() throws -> TokenResponse {
        TokenResponse(accessToken: "AT-1", refreshToken: "RT-1", idToken: try Fixture.idToken())
    }

    /// The provider's answer: a new access token, `refreshToken`, and an ID Token whose `at_hash` does not match.
    static func badAnswer(refreshToken: String?) throws -> TokenResponse {
        TokenResponse(accessToken: "AT-2", refreshToken: refreshToken, idToken: try Fixture.idToken(["at_hash": "AAAAAAAAAAAAAAAAAAAAAA"]))
    }

    func send(_ session: AuthenticatedSession) async -> OIDCError? {
        do {
            _ = try await session.send(TransportRequest(url: Fixtures.api))
            return nil
        } catch {
            return error as? OIDCError ?? OIDCError(.transport, "\(error)")
        }
    }

    @Test("plain session: rotated refresh token + bad at_hash → logged_out naming the check, store cleared, no second refresh")
    func plainRotatedLogsOut() async throws {
        let original = try Self.original()
        let answer = try Self.badAnswer(refreshToken: "RT-2")
        let store = InMemoryTokenStore(original)
        let refresher = ScriptedRefresher { .success(answer) }
        let session = try AuthenticatedSession(
            tokens: original, refresher: refresher,
            configuration: .init(
                allowedOrigins: [Fixtures.api], transport: ScriptedAPI(validToken: "AT-2"), store: store,
                refreshedIDTokens: .validate(with: Fixture.validator), proactiveRefreshMargin: nil,
                refreshBackoff: 0))
        let error = try #require(await send(session))
        #expect(error.code == .loggedOut)
        #expect(error.reason.contains("at_hash_mismatch"))
        #expect(!error.reason.contains("RT-2") && !error.reason.contains("AT-2"), "no token in the error")
        #expect(await session.currentTokens == nil)
        #expect(await store.load() == nil)
        let second = try #require(await send(session))
        #expect(second.code == .notAuthenticated)
        #expect(refresher.callCount == 1, "the spent refresh token must not be replayed")
    }

    @Test(
        "plain session: same or no refresh token + bad at_hash → at_hash_mismatch, tokens kept",
        arguments: ["RT-1", nil] as [String?])
    func plainNotRotatedKeepsTokens(_ refreshToken: String?) async throws {
        let original = try Self.original()
        let answer = try Self.badAnswer(refreshToken: refreshToken)
        let store = InMemoryTokenStore(original)
        let refresher = ScriptedRefresher { .success(answer) }
        let session = try AuthenticatedSession(
            tokens: original, refresher: refresher,
            configuration: .init(
                allowedOrigins: [Fixtures.api], transport: ScriptedAPI(validToken: "AT-2"), store: store,
                refreshedIDTokens: .validate(with: Fixture.validator), proactiveRefreshMargin: nil))
        let error = try #require(await send(session))
        #expect(error.code == OIDCError.Code(rawValue: "at_hash_mismatch"))
        #expect(await session.currentTokens?.accessToken == "AT-1")
        #expect(await store.load()?.refreshToken == "RT-1")
        #expect(refresher.callCount == 1)
    }

    @Test("coordinated file store: the first session's rotated answer is refused → store cleared; the second does not replay")
    func coordinatedNoReplay() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: path + ".lock") }
        try await FileTokenStore(path: path).save(try Self.original())
        let answer = try Self.badAnswer(refreshToken: "RT-2")
        let first = ScriptedRefresher { .success(answer) }
        let second = ScriptedRefresher { .success(answer) }
        func session(_ refresher: ScriptedRefresher) async throws -> AuthenticatedSession {
            try await AuthenticatedSession.resume(
                refresher: refresher,
                configuration: .init(
                    allowedOrigins: [Fixtures.api], transport: ScriptedAPI(validToken: "AT-2"),
                    store: FileTokenStore(path: path), refreshedIDTokens: .validate(with: Fixture.validator),
                    proactiveRefreshMargin: nil))
        }
        let a = try await session(first), b = try await session(second)
        #expect(await b.currentTokens?.refreshToken == "RT-1")
        let errorA = try #require(await send(a))
        #expect(errorA.code == .loggedOut && errorA.reason.contains("at_hash_mismatch"))
        #expect(try await FileTokenStore(path: path).load() == nil)
        let errorB = try #require(await send(b))
        #expect(errorB.code == .loggedOut)
        #expect(first.callCount == 1)
        #expect(second.callCount == 0, "the second session must not replay the spent refresh token")
        #expect(await b.currentTokens == nil)
    }
}
