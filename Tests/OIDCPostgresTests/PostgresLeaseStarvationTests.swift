import Foundation
import OIDC
@testable import OIDCPostgres
import OIDCSession
import Testing

/// What happened, in order (provider calls, abandonments), across tasks.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []
    func add(_ event: String) { lock.withLock { events.append(event) } }
    var all: [String] { lock.withLock { events } }
    func contains(_ event: String) -> Bool { lock.withLock { events.contains(event) } }
}

/// The refresh lease when the replica's request pool is starved or the lease cannot be renewed:
/// the holder renews on a connection of its own, and stops using a lease it could not renew before
/// that lease can expire.
@Suite("PostgresTokenStore's lease beside a starved pool (PG_URL)", .enabled(if: TestDatabase.isRunning))
struct PostgresLeaseStarvationTests {
    static let start = PostgresTokenStoreTests.start
    /// 8 s (renewed every 1.3 s): long enough that a loaded machine's stalls of a few seconds do not
    /// cost a live holder its lease (see `slowHolderKeepsLease`).
    static let lease = 8.0

    /// Polls `condition` (an event the test waits for) until it holds or 90 s passed (the machine may be loaded).
    func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(90)
        while try await !condition() {
            guard Date() < deadline else { Issue.record("timed out waiting for: \(what)"); throw CancellationError() }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    func leaseExpiry(_ table: TableName, _ database: PostgresDatabase) async throws -> Double {
        Double(try await database.execute("SELECT EXTRACT(EPOCH FROM lease_expires_at)::float8 FROM \(table.quoted)")
            .text(0, 0, "lease expiry")) ?? 0
    }

    @Test("every connection of the holder's request pool waits on a migration's lock during the provider call: the lease is still renewed, the other replica waits, one refresh reaches the provider")
    func starvedPoolKeepsLease() async throws {
        let name = "starve-\(UInt32.random(in: 0...UInt32.max))"
        // Replica A's pool has one connection; its statements may wait on a lock for as long as the test needs.
        let a = try TestDatabase.open(connections: 1, application: name, statementTimeout: 600)
        let b = try TestDatabase.open(connections: 1)
        let migrator = try TestDatabase.open(connections: 1), observer = try TestDatabase.open(connections: 1)
        defer { a.close(); b.close(); migrator.close(); observer.close() }
        let table = try TestDatabase.uniqueTable("tokens"), other = try TestDatabase.uniqueTable("migrating")
        let holder = try PostgresTokenStore(database: a, key: "u", table: table, lease: Self.lease)
        let waiter = try PostgresTokenStore(database: b, key: "u", table: table, lease: Self.lease)
        try await holder.createTable()
        try await holder.save(Self.start)
        _ = try await migrator.execute("CREATE TABLE \(other.quoted) (id int)")

        let provider = TokenLog(), inside = Signal(), answer = Signal()
        let holding = Task {
            try await holder.coordinatedRefresh(replacing: Self.start) { tokens in
                provider.record(tokens)
                inside.fire()
                await answer.wait()  // the provider call, slower than the lease
                return .refreshed(TokenResponse(accessToken: "AT-A", refreshToken: "RT-A"))
            }
        }
        await inside.wait()
        let first = try await leaseExpiry(table, observer)

        // A migration locks another table and stays open; replica A's one pooled connection waits on it.
        let locked = Signal(), migrated = Signal()
        let migration = Task {
            try await migrator.transaction { connection in
                _ = try await connection.execute("LOCK TABLE \(other.quoted) IN ACCESS EXCLUSIVE MODE")
                locked.fire()
                await migrated.wait()
            }
        }
        await locked.wait()
        let request = Task { try await a.execute("SELECT count(*) FROM \(other.quoted)") }
        try await eventually("replica A's pooled connection waits on the lock") {
            try await observer.execute("""
                SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'
                """, [.text(name)]).values.count == 1
        }

        let waiting = Task {
            try await waiter.coordinatedRefresh(replacing: Self.start) { tokens in
                provider.record(tokens)
                return .refreshed(TokenResponse(accessToken: "AT-B", refreshToken: "RT-B"))
            }
        }
        // The event: the lease outlived its first length (renewed while the pool was starved), or replica B refreshed.
        try await eventually("the lease renewed past its first length, or a second refresh") {
            if provider.all.count > 1 { return true }
            return try await leaseExpiry(table, observer) > first + Self.lease
        }
        answer.fire()
        let seen = try await waiting.value
        migrated.fire()
        try await migration.value
        _ = try await request.value
        let held = try await holding.value

        #expect(provider.all == ["RT-start-secret"], "one refresh reaches the provider: \(provider.all)")
        guard case .alreadyRefreshed(let tokens) = seen else { Issue.record("replica B refreshed: \(seen)"); return }
        #expect(tokens.accessToken == "AT-A")  // stored by A while its pool was still starved
        guard case .refreshed = held else { Issue.record("replica A's result was not stored: \(held)"); return }
        #expect(try await observer.execute("SELECT lease_owner FROM \(table.quoted)").values == [[nil]])
    }

    @Test("a lease that cannot be renewed (its row locked): the holder abandons its provider call before the lease can expire; the replica that takes over is the only one to reach the provider")
    func unrenewableLeaseAbandonsProviderCall() async throws {
        let a = try TestDatabase.open(connections: 1), b = try TestDatabase.open(connections: 1)
        let locker = try TestDatabase.open(connections: 1), observer = try TestDatabase.open(connections: 1)
        defer { a.close(); b.close(); locker.close(); observer.close() }
        let table = try TestDatabase.uniqueTable("tokens")
        let holder = try PostgresTokenStore(database: a, key: "u", table: table, lease: Self.lease)
        let waiter = try PostgresTokenStore(database: b, key: "u", table: table, lease: Self.lease)
        try await holder.createTable()
        try await holder.save(Self.start)

        let events = EventLog(), inside = Signal(), answer = Signal()
        let holding = Task {
            try await holder.coordinatedRefresh(replacing: Self.start) { _ in
                events.add("A called")
                inside.fire()
                await answer.wait()  // ends early when the task is cancelled
                // A transport that honours cancellation sends nothing once cancelled.
                if Task.isCancelled {
                    events.add("A abandoned")
                    throw CancellationError()
                }
                events.add("A sent")
                return .refreshed(TokenResponse(accessToken: "AT-A", refreshToken: "RT-A"))
            }
        }
        await inside.wait()
        // The row locked by someone else: no renewal (and no takeover) is written while the lock is held.
        let locked = Signal(), unlock = Signal()
        let locking = Task {
            try await locker.transaction { connection in
                _ = try await connection.execute("SELECT 1 FROM \(table.quoted) WHERE token_key = 'u' FOR UPDATE")
                locked.fire()
                await unlock.wait()
            }
        }
        await locked.wait()
        let waiting = Task {
            try await waiter.coordinatedRefresh(replacing: Self.start) { _ in
                events.add("B sent")
                return .refreshed(TokenResponse(accessToken: "AT-B", refreshToken: "RT-B"))
            }
        }
        try await eventually("A abandons its call, or its lease expires") {
            if events.contains("A abandoned") { return true }
            return try await observer.execute("""
                SELECT 1 FROM \(table.quoted) WHERE lease_expires_at <= clock_timestamp()
                """).values.count == 1
        }
        answer.fire()  // the provider would answer now: a holder still in its call sends
        unlock.fire()
        try await locking.value
        let second = try await waiting.value
        let first = await holding.result

        #expect(events.all == ["A called", "A abandoned", "B sent"], "\(events.all)")
        guard case .refreshed(let tokens) = second else { Issue.record("replica B did not take over: \(second)"); return }
        #expect(tokens.accessToken == "AT-B")
        switch first {
        case .failure(let error as OIDCError): #expect(error.code == .refreshLeaseNotRenewed, "\(error)")
        default: Issue.record("replica A should report its abandoned lease: \(first)")
        }
        #expect(try await observer.execute("SELECT lease_owner FROM \(table.quoted)").values == [[nil]])
    }

    @Test("a lease taken over during the provider call (found at the next renewal): the holder's call is cancelled at once")
    func lostLeaseCancelsProviderCall() async throws {
        let a = try TestDatabase.open(connections: 1), admin = try TestDatabase.open(connections: 1)
        defer { a.close(); admin.close() }
        let table = try TestDatabase.uniqueTable("tokens")
        let holder = try PostgresTokenStore(database: a, key: "u", table: table, lease: Self.lease)
        try await holder.createTable()
        try await holder.save(Self.start)
        let events = EventLog(), inside = Signal(), answer = Signal()
        let holding = Task {
            try await holder.coordinatedRefresh(replacing: Self.start) { _ in
                inside.fire()
                await answer.wait()
                if Task.isCancelled {
                    events.add("A abandoned")
                    throw CancellationError()
                }
                events.add("A sent")
                return .refreshed(TokenResponse(accessToken: "AT-A", refreshToken: "RT-A"))
            }
        }
        await inside.wait()
        // Someone else holds the lease now (A was cut off for a whole lease, say), for a long time.
        _ = try await admin.execute("""
            UPDATE \(table.quoted) SET generation = generation + 1, lease_owner = 'other',
                lease_expires_at = clock_timestamp() + interval '1 hour'
            """)
        try await eventually("A abandons its call") { events.contains("A abandoned") }
        answer.fire()
        await expectError(.refreshLeaseLost) { _ = try await holding.value }
        #expect(events.all == ["A abandoned"])
        #expect(try await admin.execute("SELECT lease_owner FROM \(table.quoted)").values == [["other"]])
    }
}
