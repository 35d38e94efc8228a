import Foundation
import OIDC
import OIDCResourceServer
import OIDCSession
import Testing

@testable import hummingbird_app

/// `--database redis://…`: two app instances' stores on one Redis (REDIS_URL, started by Tests/providers.sh) see
/// each other's sessions, pending logins and replays, as with PostgreSQL. Skipped without REDIS_URL, except under
/// CI=true where a missing server is a failure.
@Suite("hummingbird-app: the stores on Redis")
struct RedisStoresTests {
    struct NoNetwork: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            throw TransportError.connectionFailed("no network in this test")
        }
    }

    static var redisURL: String? {
        let url = ProcessInfo.processInfo.environment["REDIS_URL"]
        return url?.isEmpty == false ? url : nil
    }

    /// Two instances' stores on the one Redis, or `nil` (skipped) without REDIS_URL.
    static func twoInstances() async throws -> (AppStores, AppStores)? {
        guard let url = redisURL else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("REDIS_URL is required under CI=true") }
            return nil
        }
        let a = try await AppStores.shared(url: url, options: Options(), issuer: "https://op.example", transport: NoNetwork())
        let b = try await AppStores.shared(url: url, options: Options(), issuer: "https://op.example", transport: NoNetwork())
        return (a, b)
    }

    @Test("a session saved by one instance is loaded, then deleted, by the other; its tokens go with it")
    func sessionsShared() async throws {
        guard let (a, b) = try await Self.twoInstances() else { return }
        defer { a.database?.close(); b.database?.close() }
        #expect(a.database?.name == "redis")
        #expect(a.keySetSharing != nil)
        let handle = RandomHandle.make()
        let record = SessionRecord(
            tokenKey: RandomHandle.make(), issuer: "https://op.example", subject: "alice-\(handle.prefix(6))", sessionID: "sid-\(handle.prefix(6))",
            idToken: "header.payload.signature")
        try await a.sessions.save(record, handle: handle)
        try await a.sessions.tokenStore(for: record).save(
            TokenResponse(accessToken: "at-1", expiresAt: Date(timeIntervalSince1970: 1_900_000_000), refreshToken: "rt-1"))
        let loaded = try #require(try await b.sessions.load(handle: handle))
        #expect(loaded.subject == record.subject && loaded.tokenKey == record.tokenKey)
        #expect(try await b.sessions.tokenStore(for: loaded).load()?.accessToken == "at-1")
        // Back-channel logout by sid at B ends the session A made, and drops its tokens.
        #expect(try await b.sessions.deleteSessions(issuer: record.issuer, subject: nil, sessionID: record.sessionID) == 1)
        #expect(try await a.sessions.load(handle: handle) == nil)
        #expect(try await a.sessions.tokenStore(for: record).load() == nil)
    }

    @Test("a pending login saved by one instance is consumed once, by the other")
    func pendingLoginsConsumedOnce() async throws {
        guard let (a, b) = try await Self.twoInstances() else { return }
        defer { a.database?.close(); b.database?.close() }
        let key = RandomHandle.make()
        try await a.pendingLogins.saveBytes(Array("pending".utf8), key: key, expiresIn: 60, scope: "203.0.113.9")
        #expect(try await b.pendingLogins.consumeBytes(key: key) == Array("pending".utf8))
        await #expect(throws: OIDCError.self) { try await a.pendingLogins.consumeBytes(key: key) }
    }

    @Test("a DPoP proof used at one instance is a replay at the other; the logout-token cache is apart")
    func replaysShared() async throws {
        guard let (a, b) = try await Self.twoInstances() else { return }
        defer { a.database?.close(); b.database?.close() }
        let now = Date()
        let jti = "proof-" + RandomHandle.make()
        #expect(try await a.dpopProofReplays.recordFirstUse(of: jti, scope: "key-1", until: now.addingTimeInterval(60), now: now) == .firstUse)
        #expect(try await b.dpopProofReplays.recordFirstUse(of: jti, scope: "key-1", until: now.addingTimeInterval(60), now: now) == .replayed)
        // The same identifier in the logout-token cache is another cache's: a first use there.
        #expect(try await b.logoutTokenReplays.recordFirstUse(of: jti, scope: "key-1", until: now.addingTimeInterval(60), now: now) == .firstUse)
    }
}
