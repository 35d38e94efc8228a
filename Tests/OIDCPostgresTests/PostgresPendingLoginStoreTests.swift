import Foundation
import OIDC
import OIDCSession
import Testing

@testable import OIDCPostgres

@Suite("PostgresPendingLoginStore against a real server (PG_URL)", .enabled(if: TestDatabase.isRunning))
struct PostgresPendingLoginStoreTests {
    struct Pending: Codable, Equatable { var verifier: String; var nonce: String }

    func makeStore(_ database: PostgresDatabase, _ table: TableName, encrypted: Bool = true) throws -> PostgresPendingLoginStore {
        try PostgresPendingLoginStore(
            database: database, table: table,
            encryption: encrypted ? TokenEncryption(current: TestDatabase.key("k1", 3)) : nil)
    }

    @Test("saved on one replica, consumed on another; the replay fails on a third")
    func acrossReplicas() async throws {
        let a = try TestDatabase.open(), b = try TestDatabase.open(), c = try TestDatabase.open()
        defer { a.close(); b.close(); c.close() }
        let table = try TestDatabase.uniqueTable("pending")
        try await makeStore(a, table).createTable()
        let value = Pending(verifier: "verifier-secret", nonce: "nonce-secret")
        try await makeStore(a, table).save(value, key: "state-1", expiresIn: 600)
        let raw = try await a.execute("SELECT encode(state_hash, 'escape'), encode(payload, 'escape') FROM \(table.quoted)")
        #expect(!(try raw.text(0, 0, "hash")).contains("state-1"))
        #expect(!(try raw.text(0, 1, "payload")).contains("verifier-secret"))
        #expect(try await makeStore(b, table).consume(key: "state-1", as: Pending.self) == value)
        await expectError(.pendingLoginNotFound) { _ = try await makeStore(c, table).consume(key: "state-1", as: Pending.self) }
        await expectError(.pendingLoginNotFound) { _ = try await makeStore(c, table).consume(key: "never", as: Pending.self) }
    }

    @Test("20 concurrent callbacks with one state on 4 replicas: exactly one gets the login")
    func exactlyOnce() async throws {
        let pools = try (0..<4).map { _ in try TestDatabase.open(connections: 3) }
        defer { for pool in pools { pool.close() } }
        let table = try TestDatabase.uniqueTable("pending")
        let stores = try pools.map { try makeStore($0, table) }
        try await stores[0].createTable()
        try await stores[0].save(Pending(verifier: "v", nonce: "n"), key: "s", expiresIn: 60)
        let outcomes = await withTaskGroup(of: OIDCError.Code?.self) { group in
            for i in 0..<20 {
                group.addTask {
                    do { _ = try await stores[i % 4].consume(key: "s", as: Pending.self); return nil } catch let error as OIDCError {
                        return error.code
                    } catch { return OIDCError.Code(rawValue: "other") }
                }
            }
            return await group.reduce(into: [OIDCError.Code?]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.filter { $0 == .pendingLoginNotFound }.count == 19)
    }

    @Test("expired logins fail as expired once, and are purged by save and purgeExpired")
    func expiry() async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let table = try TestDatabase.uniqueTable("pending")
        let store = try makeStore(database, table, encrypted: false)
        try await store.createTable()
        // Expiry is on the database clock. Rows are aged with an UPDATE rather than by sleeping past a short
        // expiresIn: under load, a second save 50 ms later had already purged the first row (not_found, not expired).
        func age(where condition: String) async throws {
            _ = try await database.execute("UPDATE \(table.quoted) SET expires_at = now() - interval '1 second' WHERE \(condition)")
        }
        try await store.save(Pending(verifier: "v", nonce: "n"), key: "old-1", expiresIn: 600)
        try await store.save(Pending(verifier: "v", nonce: "n"), key: "old-2", expiresIn: 600)
        let lifetime = try await database.execute(
            "SELECT bool_and(expires_at > now() + interval '590 seconds' "
                + "AND expires_at <= now() + interval '600 seconds') FROM \(table.quoted)")
        #expect(lifetime.values == [["t"]], "expires_at = the database's now() + expiresIn")
        try await age(where: "true")
        await expectError(.pendingLoginExpired) { _ = try await store.consume(key: "old-1", as: Pending.self) }
        await expectError(.pendingLoginNotFound) { _ = try await store.consume(key: "old-1", as: Pending.self) }
        try await store.save(Pending(verifier: "v", nonce: "n"), key: "new", expiresIn: 600)  // purges old-2
        #expect(try await database.execute("SELECT count(*) FROM \(table.quoted)").values == [["1"]])
        try await store.save(Pending(verifier: "v", nonce: "n"), key: "short", expiresIn: 300)
        try await age(where: "expires_at < now() + interval '400 seconds'")  // only "short"
        #expect(try await store.purgeExpired() == 1)
        await expectError(.pendingLoginNotFound) { _ = try await store.consume(key: "short", as: Pending.self) }
        #expect(try await database.execute("SELECT count(*) FROM \(table.quoted)").values == [["1"]], "\"new\" stays")
    }

    @Test("a duplicate state, a bad expiry, a row of another type and garbage rows are typed errors")
    func errors() async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let table = try TestDatabase.uniqueTable("pending")
        let store = try makeStore(database, table)
        try await store.createTable()
        try await store.save(Pending(verifier: "v", nonce: "n"), key: "dup", expiresIn: 60)
        await expectError(.pendingLoginExists) { try await store.save(Pending(verifier: "v", nonce: "n"), key: "dup", expiresIn: 60) }
        await expectError(.pendingLoginUnreadable) { try await store.save(Pending(verifier: "v", nonce: "n"), key: "x", expiresIn: .nan) }
        await expectError(.pendingLoginUnreadable) { _ = try await store.consume(key: "dup", as: [Int].self) }
        try await store.save(Pending(verifier: "v", nonce: "n"), key: "bad", expiresIn: 60)
        _ = try await database.execute("UPDATE \(table.quoted) SET payload = '\\x01'::bytea")
        await expectError(.decryptionFailed) { _ = try await store.consume(key: "bad", as: Pending.self) }
    }

    @Test("the library's own PendingAuthorization round-trips")
    func pendingAuthorization() async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let table = try TestDatabase.uniqueTable("pending")
        let store = try makeStore(database, table)
        try await store.createTable()
        let request = try OAuthRequest(clientID: "client", redirectURI: URL(string: "https://app.example.com/cb")!)
        let pending = try request.pendingAuthorization(
            at: URL(string: "https://op.example.com/authorize")!, issuer: "https://op.example.com",
            issuerParameterSupported: false)
        try await store.save(pending, key: pending.state.value, expiresIn: 600)
        let back = try await store.consume(key: pending.state.value, as: PendingAuthorization.self)
        #expect(back == pending)
    }

    @Test("a flood under one scope fills only its share: another scope and a save without a scope are still accepted")
    func scopeShares() async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let table = try TestDatabase.uniqueTable("pending")
        let store = try PostgresPendingLoginStore(database: database, table: table, capacityPerScope: 5)
        try await store.createTable()
        var refused: [OIDCError.Code] = []
        for index in 0..<20 {
            do { try await store.saveBytes([1], key: "flood-\(index)", expiresIn: 600, scope: "203.0.113.9") } catch let error as OIDCError {
                refused.append(error.code)
            }
        }
        #expect(refused == Array(repeating: .pendingLoginStoreFull, count: 15))
        try await store.saveBytes([2], key: "honest", expiresIn: 600, scope: "198.51.100.7")
        try await store.saveBytes([3], key: "unscoped", expiresIn: 600, scope: nil)
        await expectError(.pendingLoginExists) { try await store.saveBytes([1], key: "flood-0", expiresIn: 600, scope: "203.0.113.9") }
        // The share frees as the scope's logins finish; through the protocol, the scope reaches the store.
        _ = try await store.consumeBytes(key: "flood-0")
        let anyStore: any PendingLoginStore = store
        try await anyStore.save(Pending(verifier: "v", nonce: "n"), key: "flood-again", expiresIn: 600, scope: "203.0.113.9")
        await expectError(.pendingLoginStoreFull) {
            try await anyStore.save(Pending(verifier: "v", nonce: "n"), key: "flood-more", expiresIn: 600, scope: "203.0.113.9")
        }
        // The address is kept only as its SHA-256.
        let raw = try await database.execute("SELECT count(*) FROM \(table.quoted) WHERE position('203.0.113.9'::bytea IN scope_hash) > 0")
        #expect(try raw.text(0, 0, "count") == "0")
    }

    @Test("createTable adds the scope column to a table made before it existed")
    func addsScopeColumn() async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let table = try TestDatabase.uniqueTable("pending")
        _ = try await database.execute(
            """
            CREATE TABLE \(table.quoted) (state_hash bytea PRIMARY KEY, key_id text, payload bytea NOT NULL, expires_at timestamptz NOT NULL)
            """)
        let store = try PostgresPendingLoginStore(database: database, table: table, capacityPerScope: 1)
        try await store.createTable()
        try await store.saveBytes([1], key: "a", expiresIn: 60, scope: "s")
        await expectError(.pendingLoginStoreFull) { try await store.saveBytes([2], key: "b", expiresIn: 60, scope: "s") }
        #expect(try await store.consumeBytes(key: "a") == [1])
    }
}
