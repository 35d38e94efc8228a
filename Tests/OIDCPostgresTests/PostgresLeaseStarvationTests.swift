import Foundation
import OIDC
import OIDCSession
import Testing

@testable import OIDCPostgres

/// What happened, in order (provider calls, abandonments), across tasks.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []
    func add(_ event: String) { lock.withLock { events.append(event) } }
    var all: [String] { lock.withLock { events } }
    func contains(_ event: String) -> Bool { lock.withLock { events.contains(event) } }
}

/// A refresher in front of a provider: counts the calls and holds each one until ``open()``.
final class GatedRefresher: TokenRefresher, @unchecked Sendable {
    private let lock = NSLock()
    private let provider: any TokenRefresher
    private var calls = 0, opened = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// Fired when the first call arrives.
    let entered = Signal()

    init(_ provider: any TokenRefresher) { self.provider = provider }

    var callCount: Int { lock.withLock { calls } }

    /// Lets every held call (and every later one) through to the provider.
    func open() {
        let held = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            opened = true
            defer { waiting = [] }
            return waiting
        }
        for continuation in held { continuation.resume() }
    }

    func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        let first = lock.withLock { () -> Bool in
            calls += 1; return calls == 1
        }
        if first { entered.fire() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = lock.withLock { () -> Bool in
                if opened { return true }
                waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        return try await provider.refreshTokens(using: refreshToken)
    }
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
        Double(
            try await database.execute("SELECT EXTRACT(EPOCH FROM lease_expires_at)::float8 FROM \(table.quoted)")
                .text(0, 0, "lease expiry")) ?? 0
    }

    @Test(
        "every connection of the holder's request pool waits on a migration's lock during the provider call: the lease is still renewed, the other replica waits, one refresh reaches the provider"
    )
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
        let endStarvation = try await starve(a, application: name, other: other, migrator: migrator, observer: observer)

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
        try await endStarvation()
        let held = try await holding.value

        #expect(provider.all == ["RT-start-secret"], "one refresh reaches the provider: \(provider.all)")
        guard case .alreadyRefreshed(let tokens) = seen else { Issue.record("replica B refreshed: \(seen)"); return }
        #expect(tokens.accessToken == "AT-A")  // stored by A while its pool was still starved
        guard case .refreshed = held else { Issue.record("replica A's result was not stored: \(held)"); return }
        #expect(try await observer.execute("SELECT lease_owner FROM \(table.quoted)").values == [[nil]])
    }

    /// A migration that locks `other` and stays open, and a request of `pool` (its only connection,
    /// its connections named `application`) waiting on that lock; `end` commits the migration and
    /// awaits the request.
    func starve(
        _ pool: PostgresDatabase, application: String, other: TableName, migrator: PostgresDatabase,
        observer: PostgresDatabase
    ) async throws -> @Sendable () async throws -> Void {
        let locked = Signal(), migrated = Signal()
        let migration = Task {
            try await migrator.transaction { connection in
                _ = try await connection.execute("LOCK TABLE \(other.quoted) IN ACCESS EXCLUSIVE MODE")
                locked.fire()
                await migrated.wait()
            }
        }
        await locked.wait()
        let request = Task { try await pool.execute("SELECT count(*) FROM \(other.quoted)") }
        try await eventually("the pool's connection waits on the migration's lock") {
            try await observer.execute(
                """
                SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'
                """, [.text(application)]
            ).values.count == 1
        }
        return {
            migrated.fire()
            try await migration.value
            _ = try await request.value
        }
    }

    @Test(
        "two sessions on two replicas; the first replica's pool starved while the provider (rotation, reuse detection) answers after more than a lease: one refresh at the provider, the token family intact, both requests 200"
    )
    func sessionsBesideStarvedPool() async throws {
        let name = "starve-\(UInt32.random(in: 0...UInt32.max))"
        let a = try TestDatabase.open(connections: 1, application: name, statementTimeout: 600)
        let b = try TestDatabase.open(connections: 1)
        let migrator = try TestDatabase.open(connections: 1), observer = try TestDatabase.open(connections: 1)
        defer { a.close(); b.close(); migrator.close(); observer.close() }
        let table = try TestDatabase.uniqueTable("session"), other = try TestDatabase.uniqueTable("migrating")
        let storeA = try PostgresTokenStore(database: a, key: "alice", table: table, lease: Self.lease)
        let storeB = try PostgresTokenStore(database: b, key: "alice", table: table, lease: Self.lease)
        try await storeA.createTable()
        try await storeA.save(TokenResponse(accessToken: "AT-0", refreshToken: "RT-0"))
        _ = try await migrator.execute("CREATE TABLE \(other.quoted) (id int)")
        let provider = RotatingProvider(), gate = GatedRefresher(provider)
        let origins = [URL(string: "https://api.example.com")!]
        let sessionA = try await AuthenticatedSession.resume(
            refresher: gate,
            configuration: .init(allowedOrigins: origins, transport: provider, store: storeA, proactiveRefreshMargin: nil))
        let sessionB = try await AuthenticatedSession.resume(
            refresher: gate,
            configuration: .init(allowedOrigins: origins, transport: provider, store: storeB, proactiveRefreshMargin: nil))
        provider.expireAccessToken()

        let first = Task { try await sessionA.send(TransportRequest(url: CoordinatedSessionTests.api)).status }
        await gate.entered.wait()  // replica A holds the lease; its provider call is held at the gate
        let expiry = try await leaseExpiry(table, observer)
        let endStarvation = try await starve(a, application: name, other: other, migrator: migrator, observer: observer)
        let second = Task { try await sessionB.send(TransportRequest(url: CoordinatedSessionTests.api)).status }
        try await eventually("the lease renewed past its first length, or a second call at the provider's door") {
            if gate.callCount > 1 { return true }
            return try await leaseExpiry(table, observer) > expiry + Self.lease
        }
        gate.open()
        let statusB = try await second.value
        try await endStarvation()
        let statusA = try await first.value

        #expect(provider.refreshCalls == 1, "one refresh at the provider")
        #expect(!provider.familyRevoked)
        #expect(statusA == 200 && statusB == 200, "\(statusA) \(statusB)")
        #expect(try await storeB.load()?.refreshToken == "RT-1")
    }

    @Test(
        "a lease that cannot be renewed (its row locked): the holder abandons its provider call before the lease can expire; the replica that takes over is the only one to reach the provider"
    )
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
            return try await observer.execute(
                """
                SELECT 1 FROM \(table.quoted) WHERE lease_expires_at <= clock_timestamp()
                """
            ).values.count == 1
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
        _ = try await admin.execute(
            """
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
