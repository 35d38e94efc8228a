import Foundation
import OIDC
import OIDCSession
import Testing

@testable import OIDCPostgres

/// Counts refresh steps; each returns the next numbered token set after `delay`.
final class StepCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func next() -> Int { lock.lock(); defer { lock.unlock() }; count += 1; return count }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

@Suite("PostgresTokenStore against a real server (PG_URL)", .enabled(if: TestDatabase.isRunning))
struct PostgresTokenStoreTests {
    static let start = TokenResponse(
        accessToken: "AT-start-secret", expiresAt: Date(timeIntervalSince1970: 1_900_000_000),
        refreshToken: "RT-start-secret", idToken: "ID-start")

    func store(
        _ database: PostgresDatabase, _ table: TableName, key: String = "user-1",
        encryption: TokenEncryption? = nil
    ) throws -> PostgresTokenStore {
        try PostgresTokenStore(database: database, key: key, table: table, encryption: encryption)
    }

    @Test("save, load, overwrite and clear; keys are separate rows")
    func basics() async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let table = try TestDatabase.uniqueTable("tokens")
        let alice = try store(database, table, key: "alice"), bob = try store(database, table, key: "bob")
        try await alice.createTable()
        try await alice.createTable()  // idempotent
        #expect(try await alice.load() == nil)
        try await alice.save(Self.start)
        var second = Self.start
        second.accessToken = "AT-2"
        try await bob.save(second)
        #expect(try await alice.load()?.accessToken == "AT-start-secret")
        #expect(try await alice.load()?.refreshToken == "RT-start-secret")
        #expect(try await alice.load()?.expiresAt == Self.start.expiresAt)
        #expect(try await bob.load()?.accessToken == "AT-2")
        try await alice.save(second)
        let generation = try await database.execute("SELECT generation FROM \(table.quoted) WHERE token_key = 'alice'")
        #expect(generation.values == [["2"]])
        try await alice.clear()
        #expect(try await alice.load() == nil)
        #expect(try await bob.load() != nil)
    }

    @Test("encrypted at rest: the row holds no token text, names its key id, and another row's ciphertext does not open")
    func encryptedAtRest() async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let table = try TestDatabase.uniqueTable("tokens")
        let encryption = try TokenEncryption(current: TestDatabase.key("k1", 7))
        let alice = try store(database, table, key: "alice", encryption: encryption)
        try await alice.createTable()
        try await alice.save(Self.start)
        let raw = try await database.execute("SELECT key_id, encode(payload, 'escape') FROM \(table.quoted)")
        #expect(raw.values.first?.first == "k1")
        let payload = try raw.text(0, 1, "payload")
        #expect(!payload.contains("AT-start") && !payload.contains("RT-start") && !payload.contains("access_token"))
        #expect(try await alice.load()?.accessToken == "AT-start-secret")
        // Copying alice's ciphertext into bob's row does not give bob alice's tokens.
        _ = try await database.execute(
            "INSERT INTO \(table.quoted) (token_key, key_id, payload) SELECT 'bob', key_id, payload FROM \(table.quoted) WHERE token_key = 'alice'")
        await expectError(.decryptionFailed) { _ = try await store(database, table, key: "bob", encryption: encryption).load() }
        // Without the key, or with a plain store, nothing is read.
        await expectError(.decryptionFailed) { _ = try await store(database, table, key: "alice").load() }
        // Rotation: k2 current, k1 previous: reads the old row, rewrites it under k2.
        let rotated = try TokenEncryption(current: TestDatabase.key("k2", 8), previous: [TestDatabase.key("k1", 7)])
        let rotatedStore = try store(database, table, key: "alice", encryption: rotated)
        let tokens = try #require(try await rotatedStore.load())
        try await rotatedStore.save(tokens)
        #expect(try await database.execute("SELECT key_id FROM \(table.quoted) WHERE token_key = 'alice'").values == [["k2"]])
        await expectError(.decryptionFailed) { _ = try await alice.load() }  // k1-only config can no longer read it
    }

    @Test(
        "rows not in the stored form are typed errors, not crashes",
        arguments: [
            "'\\x00ff'::bytea", "convert_to('{\"access_token\": 5}', 'UTF8')", "convert_to('[]', 'UTF8')", "convert_to('{', 'UTF8')",
            "convert_to('{\"access_token\":\"a\",\"token_type\":\"Bearer\",\"expires_at\":1e400}', 'UTF8')",
        ])
    func corruptRows(_ payload: String) async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let table = try TestDatabase.uniqueTable("tokens")
        let alice = try store(database, table, key: "alice")
        try await alice.createTable()
        _ = try await database.execute("INSERT INTO \(table.quoted) (token_key, payload) VALUES ('alice', \(payload))")
        await expectError(.invalidDatabaseRow) { _ = try await alice.load() }
    }

    /// `callers` stores on `replicas` pools race to refresh the same stale tokens.
    func race(replicas: Int, callers: Int, step: @escaping @Sendable (TokenResponse, Int) async throws -> RefreshStepResult)
        async throws -> (results: [Result<CoordinatedRefreshResult, any Error>], table: TableName, count: Int, stored: TokenResponse?)
    {
        let pools = try (0..<replicas).map { _ in try TestDatabase.open(connections: 2) }
        defer { for pool in pools { pool.close() } }
        let table = try TestDatabase.uniqueTable("tokens")
        let first = try store(pools[0], table)
        try await first.createTable()
        try await first.save(Self.start)
        let counter = StepCounter()
        let stores = try pools.map { try store($0, table) }
        let results = await withTaskGroup(of: Result<CoordinatedRefreshResult, any Error>.self) { group in
            for index in 0..<callers {
                let store = stores[index % stores.count]
                group.addTask {
                    do {
                        return .success(
                            try await store.coordinatedRefresh(replacing: Self.start) { tokens in
                                try await step(tokens, counter.next())
                            })
                    } catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        return (results, table, counter.value, try await first.load())
    }

    @Test("40 callers on 4 pools: exactly one refresh step runs; everyone else reads its tokens")
    func singleFlight() async throws {
        let (results, _, count, stored) = try await race(replicas: 4, callers: 40) { tokens, n in
            #expect(tokens.refreshToken == "RT-start-secret")
            try await Task.sleep(nanoseconds: 100_000_000)
            return .refreshed(TokenResponse(accessToken: "AT-\(n)", refreshToken: "RT-\(n)"))
        }
        #expect(count == 1)
        #expect(stored?.accessToken == "AT-1")
        var refreshed = 0, already = 0
        for result in results {
            switch result {
            case .success(.refreshed(let tokens)): refreshed += 1; #expect(tokens.accessToken == "AT-1")
            case .success(.alreadyRefreshed(let tokens)): already += 1; #expect(tokens.accessToken == "AT-1")
            default: Issue.record("unexpected \(result)")
            }
        }
        #expect(refreshed == 1 && already == 39)
    }

    @Test("a refused refresh logs out once for everyone: one step, the row deleted, every caller logged out")
    func refusedOnce() async throws {
        let (results, _, count, stored) = try await race(replicas: 3, callers: 12) { _, _ in
            .refused(OIDCError(.loggedOut, "invalid_grant"))
        }
        #expect(count == 1)
        #expect(stored == nil)
        var withError = 0
        for result in results {
            guard case .success(.loggedOut(let error)) = result else { Issue.record("unexpected \(result)"); continue }
            if error != nil { withError += 1 }
        }
        #expect(withError == 1)
    }

    @Test("a failing refresh step (transport) keeps the stored tokens; the next caller tries again")
    func transientFailure() async throws {
        let (results, _, count, stored) = try await race(replicas: 2, callers: 4) { _, n in
            if n == 1 { throw OIDCError(.refreshFailed, "network down") }
            return .refreshed(TokenResponse(accessToken: "AT-\(n)", refreshToken: "RT-\(n)"))
        }
        #expect(count == 2)
        #expect(stored?.accessToken == "AT-2")
        #expect(results.filter { if case .failure = $0 { return true } else { return false } }.count == 1)
    }
}
