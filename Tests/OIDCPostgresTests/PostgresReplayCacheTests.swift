import Foundation
import JOSE
import OIDC
import OIDCResourceServer
import Testing

@testable import OIDCPostgres

@Suite("PostgresReplayCache against a real server (PG_URL)", .enabled(if: TestDatabase.isRunning))
struct PostgresReplayCacheTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static func at(_ offset: TimeInterval) -> Date { t0.addingTimeInterval(offset) }

    func rowCount(_ database: PostgresDatabase, _ table: TableName) async throws -> Int {
        Int(try await database.execute("SELECT count(*) FROM \(table.quoted)").text(0, 0, "count")) ?? -1
    }

    @Test("first use true; a replay at another replica (another pool) false; the table holds no identifier text")
    func acrossReplicas() async throws {
        let a = try TestDatabase.open(), b = try TestDatabase.open()
        defer { a.close(); b.close() }
        let table = try TestDatabase.uniqueTable("replay")
        let first = try PostgresReplayCache(database: a, table: table), second = try PostgresReplayCache(database: b, table: table)
        try await first.createTable()
        try await second.createTable()  // idempotent
        #expect(try await first.recordFirstUse(of: "jti-secret-1", scope: "https://as.example", until: Self.at(660), now: Self.t0) == .firstUse)
        #expect(try await second.recordFirstUse(of: "jti-secret-1", scope: "https://as.example", until: Self.at(960), now: Self.at(300)) == .replayed)
        #expect(try await first.recordFirstUse(of: "jti-secret-1", scope: "https://as.example", until: Self.at(960), now: Self.at(659)) == .replayed)
        // Another scope or identifier is another entry.
        #expect(try await second.recordFirstUse(of: "jti-secret-1", scope: "https://other.example", until: Self.at(660), now: Self.t0) == .firstUse)
        #expect(try await second.recordFirstUse(of: "jti-secret-2", scope: "https://as.example", until: Self.at(660), now: Self.t0) == .firstUse)
        let raw = try await a.execute("SELECT scope, encode(identifier, 'escape') FROM \(table.quoted)")
        #expect(raw.values.count == 3)
        #expect(!raw.values.contains { ($0[1] ?? "").contains("jti-secret") })
        #expect("\(first)" == "PostgresReplayCache(table: \(table))")
    }

    @Test("release: the identifier is a first use again at every replica; another scope's entry stays")
    func release() async throws {
        let a = try TestDatabase.open(), b = try TestDatabase.open()
        defer { a.close(); b.close() }
        let table = try TestDatabase.uniqueTable("replay")
        let first = try PostgresReplayCache(database: a, table: table), second = try PostgresReplayCache(database: b, table: table)
        try await first.createTable()
        #expect(try await first.recordFirstUse(of: "j", scope: "s", until: Self.at(600), now: Self.t0) == .firstUse)
        #expect(try await first.recordFirstUse(of: "j", scope: "other", until: Self.at(600), now: Self.t0) == .firstUse)
        try await first.release("j", scope: "s")
        try await first.release("never-recorded", scope: "s")
        #expect(try await second.recordFirstUse(of: "j", scope: "s", until: Self.at(600), now: Self.at(1)) == .firstUse)
        #expect(try await second.recordFirstUse(of: "j", scope: "s", until: Self.at(600), now: Self.at(2)) == .replayed)
        #expect(try await second.recordFirstUse(of: "j", scope: "other", until: Self.at(600), now: Self.at(2)) == .replayed)
    }

    @Test("an expired entry is reusable (a new first use), and a replay never extends a live entry")
    func expiredReusable() async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let table = try TestDatabase.uniqueTable("replay")
        let cache = try PostgresReplayCache(database: database, table: table)
        try await cache.createTable()
        #expect(try await cache.recordFirstUse(of: "j", scope: "s", until: Self.at(100), now: Self.t0) == .firstUse)
        #expect(try await cache.recordFirstUse(of: "j", scope: "s", until: Self.at(10_000), now: Self.at(99.5)) == .replayed)
        // The refused replay did not move the expiry: at 100 the entry is over.
        #expect(try await cache.recordFirstUse(of: "j", scope: "s", until: Self.at(200), now: Self.at(100)) == .firstUse)
        #expect(try await cache.recordFirstUse(of: "j", scope: "s", until: Self.at(300), now: Self.at(150)) == .replayed)
        // Extreme dates from a caller never fail the statement: remembered "forever".
        #expect(try await cache.recordFirstUse(of: "far", scope: "s", until: Date(timeIntervalSince1970: 1e300), now: Self.t0) == .firstUse)
        #expect(try await cache.recordFirstUse(of: "far", scope: "s", until: Self.at(1), now: Date(timeIntervalSince1970: 1e15)) == .replayed)
        #expect(try await cache.recordFirstUse(of: "nan", scope: "s", until: Date(timeIntervalSince1970: .nan), now: Self.t0) == .firstUse)
        #expect(try await cache.recordFirstUse(of: "nan", scope: "s", until: Self.at(1), now: Self.at(1e9)) == .replayed)
    }

    @Test("cleanup: every N first-use checks expired rows are deleted (in bounded batches); purgeExpired too")
    func cleanup() async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let table = try TestDatabase.uniqueTable("replay")
        let cache = try PostgresReplayCache(database: database, table: table, cleanupInterval: 5, cleanupBatch: 2)
        try await cache.createTable()
        for i in 0..<4 { #expect(try await cache.recordFirstUse(of: "old-\(i)", scope: "s", until: Self.at(10), now: Self.t0) == .firstUse) }
        #expect(try await rowCount(database, table) == 4)
        // The 5th check runs at t0 + 20, when the 4 old rows have expired: one batch of 2 is deleted.
        #expect(try await cache.recordFirstUse(of: "new-0", scope: "s", until: Self.at(600), now: Self.at(20)) == .firstUse)
        #expect(try await rowCount(database, table) == 3)
        for i in 1..<6 { #expect(try await cache.recordFirstUse(of: "new-\(i)", scope: "s", until: Self.at(600), now: Self.at(20)) == .firstUse) }
        #expect(try await rowCount(database, table) == 3 + 5 - 2)  // the 10th check deleted the other 2 old rows
        #expect(try await cache.purgeExpired(now: Self.at(20)) == 0)
        #expect(try await cache.purgeExpired(now: Self.at(600), limit: 4) == 4)
        #expect(try await cache.purgeExpired(now: Self.at(600), limit: 100) == 2)
        #expect(try await rowCount(database, table) == 0)
    }

    @Test(
        "bounded per scope: a scope at its share gets full (not a replay) for new identifiers, replays stay replays, other scopes record (were refused by nothing but memory)"
    )
    func scopeShare() async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let table = try TestDatabase.uniqueTable("replay")
        let cache = try PostgresReplayCache(database: database, table: table, scopeCapacity: 3)
        #expect(cache.scopeCapacity == 3)
        try await cache.createTable()
        for i in 0..<3 { #expect(try await cache.recordFirstUse(of: "k-\(i)", scope: "attacker", until: Self.at(100 + Double(i)), now: Self.t0) == .firstUse) }
        #expect(try await cache.recordFirstUse(of: "k-3", scope: "attacker", until: Self.at(100), now: Self.t0) == .full)
        #expect(try await cache.recordFirstUse(of: "k-1", scope: "attacker", until: Self.at(101), now: Self.at(1)) == .replayed)
        #expect(try await cache.recordFirstUse(of: "fresh", scope: "honest", until: Self.at(100), now: Self.t0) == .firstUse)
        #expect(try await cache.recordFirstUse(of: "logout-1", scope: "https://as.example", until: Self.at(600), now: Self.t0) == .firstUse)
        // Once k-0 has expired, the scope has room again (k-0's expired row is taken over, or a new one inserted).
        #expect(try await cache.recordFirstUse(of: "k-3", scope: "attacker", until: Self.at(400), now: Self.at(100)) == .firstUse)
        #expect(try await cache.recordFirstUse(of: "k-4", scope: "attacker", until: Self.at(400), now: Self.at(100)) == .full)
        #expect(try await cache.recordFirstUse(of: "k-0", scope: "attacker", until: Self.at(400), now: Self.at(100)) == .full)
        #expect(try PostgresReplayCache(database: database, table: table).scopeCapacity == 10_000)
    }

    @Test("24 concurrent first uses of one identifier on 4 replicas: exactly one is told first use")
    func concurrentFirstUse() async throws {
        let pools = try (0..<4).map { _ in try TestDatabase.open(connections: 3) }
        defer { for pool in pools { pool.close() } }
        let table = try TestDatabase.uniqueTable("replay")
        let caches = try pools.map { try PostgresReplayCache(database: $0, table: table) }
        try await caches[0].createTable()
        for round in 0..<3 {
            let firsts = try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 0..<24 {
                    group.addTask {
                        try await caches[i % 4].recordFirstUse(of: "proof-\(round)", scope: "thumbprint", until: Self.at(300), now: Self.t0) == .firstUse
                    }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(firsts == 1, "round \(round)")
        }
        // Concurrent takeovers of an expired entry: exactly one again.
        let takeovers = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<24 {
                group.addTask {
                    try await caches[i % 4].recordFirstUse(of: "proof-0", scope: "thumbprint", until: Self.at(900), now: Self.at(600)) == .firstUse
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(takeovers == 1)
    }

    @Test("a logout token replayed at another replica is refused (two validators, two pools, one table)")
    func logoutAcrossReplicas() async throws {
        let a = try TestDatabase.open(), b = try TestDatabase.open()
        defer { a.close(); b.close() }
        let table = try TestDatabase.uniqueTable("replay")
        let cacheA = try PostgresReplayCache(database: a, table: table), cacheB = try PostgresReplayCache(database: b, table: table)
        try await cacheA.createTable()
        let key = try JWK(json: String(contentsOf: Self.keys.appendingPathComponent("p256.jwk"), encoding: .utf8))
        let publicKeys = try JWKSet(json: String(contentsOf: Self.keys.appendingPathComponent("jwks.json"), encoding: .utf8))
        let claims: JSONObject = [
            "iss": "https://as.example", "aud": "rp", "iat": .integer(1_800_000_000), "exp": .integer(1_800_000_120),
            "jti": "logout-1", "sub": "alice",
            "events": .object([LogoutToken.backChannelLogoutEvent: .object([:])]),
        ]
        let token = try JWT.sign(claims, key: key, algorithm: .es256, header: ["typ": "logout+jwt"])
        func validator(_ cache: PostgresReplayCache) -> LogoutTokenValidator {
            LogoutTokenValidator(issuer: "https://as.example", clientID: "rp", keys: .keySet(publicKeys), replays: cache, clock: { Self.at(5) })
        }
        _ = try await validator(cacheA).validate(token)
        await expectError(.replayedLogoutToken) { _ = try await validator(cacheB).validate(token) }
    }

    static let keys = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Keys")

    @Test("an unreachable database and a bad table name are typed errors")
    func unreachable() async throws {
        let database = try PostgresDatabase(url: "postgresql://nobody@127.0.0.1:5474/none?connect_timeout=2")
        defer { database.close() }
        let cache = try PostgresReplayCache(database: database)
        await expectError(.databaseUnavailable) { _ = try await cache.recordFirstUse(of: "j", scope: "s", until: Self.at(1), now: Self.t0) }
        await expectError(.invalidTableName) { _ = try PostgresReplayCache(database: database, table: TableName("bad name")) }
    }
}
