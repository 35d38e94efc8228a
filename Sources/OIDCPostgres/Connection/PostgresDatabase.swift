import CLibPQ
import JOSE
import OIDC
import OIDCSession

/// A small pool of PostgreSQL connections, each on its own thread.
///
/// - Connection string: anything libpq accepts, a URI
///   (`postgresql://user@127.0.0.1:5432/db?sslmode=verify-full&sslrootcert=/path/ca.pem`)
///   or `key=value` pairs. Every libpq option passes through unchanged, TLS included:
///   `sslmode` (use `verify-full` across a network), `sslrootcert`, `sslcert`,
///   `sslkey`, `sslcrl`, `ssl_min_protocol_version`; passwords may also come from
///   `PGPASSWORD` or `~/.pgpass`. The string is never put into errors or descriptions.
/// - Partitions are detected in seconds: unless the string sets its own, each connection
///   has `connect_timeout=10`, TCP keepalives (`keepalives=1 keepalives_idle=5
///   keepalives_interval=2 keepalives_count=3`) and `tcp_user_timeout=10000`; and a
///   `statement_timeout` (`statementTimeout`, unless the role, database or URL sets one).
/// - Besides the pool, one dedicated connection `LISTEN`s for row changes (opened when a
///   store first waits for another replica's refresh), so waiters are woken by `NOTIFY`.
/// - And one more, the *lease connection*, carries every statement of a held refresh lease
///   (``PostgresTokenStore``: taking, renewing, storing, ending it), opened when a store first
///   takes a lease. The request pool can be starved (every connection waiting on a lock held by a
///   migration, or on slow queries) without holding up a renewal: a lease is lost only when the
///   database itself cannot be reached or the row stays locked. Its statements are short and
///   run one at a time for every lease of this pool, with `lock_timeout` 1 s (a locked row costs
///   one renewal attempt, not the other leases' renewals).
/// - Blocking libpq calls run only on the pool's threads, never on Swift's
///   cooperative pool; a caller waiting for a connection is a suspended task.
/// - A connection that dropped (server restart, `pg_terminate_backend`, network)
///   is reopened on its next use; a single statement outside a transaction that
///   failed because the connection dropped is retried once on a new connection.
/// - Only parameterized statements (`PQexecParams`) are sent.
public final class PostgresDatabase: Sendable, CustomStringConvertible, CustomReflectable {
    private let maximumConnections: Int
    /// The dedicated `LISTEN` connection that wakes waiters (started on first use).
    package let listener: ChangeListener
    private let pool: ConnectionPool<PGConnection>
    private let statements = Locked(0)

    /// Whether ``close()`` was called (a closed pool's `database_unavailable` is final: no retry helps).
    package var isClosed: Bool { pool.isClosed }

    /// Statements sent so far (for benchmarks and tests: "no database round trip on this path").
    package var statementsSent: Int { statements.withLock { $0 } }

    /// A pool for `url` of at most `maximumConnections` connections (opened on demand).
    /// - Parameters:
    ///   - url: a libpq connection URI or `key=value` string.
    ///   - maximumConnections: the pool's size (the `LISTEN` connection and the lease connection come on top).
    ///   - statementTimeout: the `statement_timeout` set on each connection, in seconds (default 30;
    ///     0.001–86400), unless the role, the database or the URL's `options` set one.
    /// - Throws: `database_error` when libpq cannot parse the connection string
    ///   (nothing is connected yet), when `maximumConnections` is below 1, or `statementTimeout` out of range.
    public init(url: String, maximumConnections: Int = 4, statementTimeout: Double = 30) throws {
        guard maximumConnections >= 1 else { throw OIDCError(.databaseError, "maximumConnections must be at least 1") }
        guard statementTimeout.isFinite, statementTimeout >= 0.001, statementTimeout <= 86_400,
            let milliseconds = (statementTimeout * 1000).rounded(.up).wholeInt
        else {
            throw OIDCError(.databaseError, "statementTimeout must be between 0.001 and 86400 seconds")
        }
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &message) else {
            if let message { PQfreemem(message) }
            throw OIDCError(.databaseError, "the database URL is not a valid libpq connection string or URI")
        }
        PQconninfoFree(options)
        self.maximumConnections = maximumConnections
        listener = ChangeListener(threadName: "OIDCPostgres listener") { PGChangeFeed(conninfo: url) }
        pool = ConnectionPool(maximumConnections: maximumConnections, closedError: { OIDCError(.databaseUnavailable, "the database pool was closed") }) {
            forLease in
            PGWorker(
                connection: PGConnection(
                    conninfo: url, statementTimeoutMilliseconds: milliseconds,
                    lockTimeoutMilliseconds: forLease ? Self.leaseLockTimeoutMilliseconds : nil),
                name: forLease ? "OIDCPostgres lease connection" : "OIDCPostgres connection")
        }
    }

    deinit { close() }

    /// `PostgresDatabase(connections: N)`: never the connection string (it may hold a password).
    public var description: String { "PostgresDatabase(connections: \(maximumConnections))" }
    /// Only the pool size: the connection string may hold a password.
    public var customMirror: Mirror { Mirror(self, children: ["maximumConnections": maximumConnections]) }

    /// Closes every connection and ends the pool's threads. Later calls fail with `database_unavailable`.
    public func close() {
        pool.close()
        listener.stop()
    }

    /// Runs one statement in its own implicit transaction; retried once if the connection had dropped.
    package func execute(_ sql: String, _ parameters: [PGParameter] = []) async throws -> PGRows {
        try await withConnection { connection in
            do {
                return try await connection.execute(sql, parameters)
            } catch let error as OIDCError where error.code == .databaseUnavailable {
                return try await connection.execute(sql, parameters)
            }
        }
    }

    /// Runs one statement on the lease connection (never waiting for the pool), in its own implicit
    /// transaction; retried once if the connection had dropped. With `abandonable`, a cancelled caller
    /// stops waiting at once (`CancellationError`) while the statement runs to its end, before any later one.
    package func executeForLease(_ sql: String, _ parameters: [PGParameter] = [], abandonable: Bool = false) async throws -> PGRows {
        let worker = try pool.leaseWorker()
        statements.withLock { $0 += 1 }
        let run: @Sendable (PGConnection) throws -> PGRows = { connection in
            do {
                return try connection.execute(sql, parameters)
            } catch let error as OIDCError where error.code == .databaseUnavailable {
                return try connection.execute(sql, parameters)
            }
        }
        return abandonable ? try await worker.runAbandonable(run) : try await worker.run(run)
    }

    /// The lease connection's `lock_timeout`: a row or table locked by someone else costs one renewal
    /// attempt (retried), not every other lease's renewals queued behind it.
    static let leaseLockTimeoutMilliseconds = 1000

    /// Runs `body` with one connection of the pool (outside any transaction unless `body` begins one).
    package func withLease<T: Sendable>(_ body: (PGLease) async throws -> T) async throws -> T {
        try await withConnection(body)
    }

    /// Runs `body` inside `BEGIN` … `COMMIT` on one connection; `ROLLBACK` when it throws.
    /// Row locks taken inside end with the transaction, or with the connection if the process dies.
    package func transaction<T: Sendable>(_ body: (PGLease) async throws -> T) async throws -> T {
        try await withConnection { connection in
            do {
                _ = try await connection.execute("BEGIN")
            } catch let error as OIDCError where error.code == .databaseUnavailable {
                _ = try await connection.execute("BEGIN")  // a connection found dead: reopened once
            }
            do {
                let value = try await body(connection)
                _ = try await connection.execute("COMMIT")
                return value
            } catch {
                await connection.rollback()
                throw error
            }
        }
    }

    /// Runs schema statements (`CREATE … IF NOT EXISTS`) in one transaction under an
    /// advisory lock, so replicas starting together do not race on the catalog.
    package func createSchema(_ statements: [String]) async throws {
        try await transaction { connection in
            _ = try await connection.execute("SELECT set_config('client_min_messages', 'warning', true)")  // no "already exists" notices
            _ = try await connection.execute("SELECT pg_advisory_xact_lock(hashtext('oidc-toolkit-schema'))")
            for statement in statements { _ = try await connection.execute(statement) }
        }
    }

    /// Leases one connection for `body`, then returns it to the pool.
    private func withConnection<T: Sendable>(_ body: (PGLease) async throws -> T) async throws -> T {
        let worker = try await pool.acquire()
        let statements = self.statements
        let lease = PGLease(worker: worker, count: { statements.withLock { $0 += 1 } })
        do {
            let value = try await body(lease)
            await release(worker)
            return value
        } catch {
            await release(worker)
            throw error
        }
    }

    private func release(_ worker: PGWorker) async {
        // A connection must come back outside any transaction.
        if (try? await worker.run({ $0.inTransaction })) == true {
            _ = try? await worker.run { connection in connection.close() }
        }
        pool.release(worker)
    }
}

/// A connection leased from ``PostgresDatabase`` for a sequence of statements.
package struct PGLease: Sendable {
    fileprivate let worker: PGWorker

    fileprivate let count: @Sendable () -> Void

    /// Runs one parameterized statement on the leased connection's thread.
    package func execute(_ sql: String, _ parameters: [PGParameter] = []) async throws -> PGRows {
        count()
        return try await worker.run { try $0.execute(sql, parameters) }
    }

    /// The value libpq uses for connection option `keyword` on the leased connection (opened if needed).
    package func option(_ keyword: String) async throws -> String? {
        try await worker.run { connection in
            try connection.connectIfNeeded()
            return connection.option(keyword)
        }
    }

    /// Ends an open transaction; a connection that cannot is closed (the server rolls back).
    fileprivate func rollback() async {
        _ = try? await worker.run { connection in
            guard connection.inTransaction else { return }
            do { _ = try connection.execute("ROLLBACK") } catch { connection.close() }
        }
    }
}

/// A thread owning one ``PGConnection`` (the pool's and the lease connection's).
typealias PGWorker = ConnectionWorker<PGConnection>

extension PGConnection: BlockingConnection {}
