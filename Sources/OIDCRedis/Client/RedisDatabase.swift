import JOSE
import OIDC
import OIDCSession
import OIDCTLSTransport

/// A bounded pool of connections to one Redis 7 or Valkey 8 server (one database of it), each on its own thread.
///
/// - URL: `redis://[[user]:password@]host[:port][/db]`, or `rediss://…` for TLS through libssl (TLS 1.2 at
///   least, the server's certificate verified for the host against the system's trust store or `caFile`).
///   `user` and `password` are sent with `AUTH` (ACL users; a password alone for the `default` user); the
///   path chooses the database number (default 0). The URL is never put into errors or descriptions.
/// - Each command has a deadline (`commandTimeout`), each connection attempt one of its own (`connectTimeout`).
///   A connection that dropped (server restart, `CLIENT KILL`, network) is reopened on its next use, after
///   a pause that grows from 50 ms to 2 s while the server stays unreachable.
/// - Besides the pool, one dedicated connection `SUBSCRIBE`s to the stores' change channel (opened when a
///   store first waits for another replica's refresh), so waiters are woken by `PUBLISH`.
/// - And one more, the *lease connection*, carries every command of a held refresh lease
///   (``RedisTokenStore``: taking, renewing, storing, ending it): requests queued on a starved pool cannot
///   hold up a renewal.
/// - Socket calls run only on the pool's threads, never on Swift's cooperative pool; a caller waiting for a
///   connection is a suspended task.
public final class RedisDatabase: Sendable, CustomStringConvertible, CustomReflectable {
    package let endpoint: RedisEndpoint
    private let maximumConnections: Int
    /// The dedicated `SUBSCRIBE` connection that wakes waiters (started on first use).
    package let subscriber: ChangeListener
    private let pool: ConnectionPool<RedisConnection>
    private let commands = Locked(0)

    /// Whether ``close()`` was called (a closed pool's `redis_unavailable` is final: no retry helps).
    package var isClosed: Bool { pool.isClosed }

    /// Commands sent so far (benchmarks and tests).
    package var commandsSent: Int { commands.withLock { $0 } }

    /// A pool for `url` of at most `maximumConnections` connections (opened on demand).
    /// - Parameters:
    ///   - url: `redis://` or `rediss://` (see above).
    ///   - maximumConnections: the pool's size, 1–1024 (the subscriber and the lease connection come on top).
    ///   - connectTimeout: the longest one connection attempt (TCP, TLS, `AUTH`, `SELECT`) may take, in seconds (default 5).
    ///   - commandTimeout: the longest the server may take to answer one command, in seconds (default 5).
    ///   - caFile: for `rediss://`, the PEM file of the CA certificates to trust instead of the system's.
    ///   - clientName: a name set on every connection (`CLIENT SETNAME`; letters, digits, `-`, `_`, `.`, at most 64), to
    ///     find them in `CLIENT LIST`.
    /// - Throws: `invalid_redis_url` for a URL, a size or a timeout out of range, or an unreadable `caFile`
    ///   (nothing is connected yet).
    public init(
        url: String, maximumConnections: Int = 4, connectTimeout: Double = 5, commandTimeout: Double = 5, caFile: String? = nil,
        clientName: String? = nil
    ) throws {
        if let clientName {
            guard (1...64).contains(clientName.utf8.count),
                clientName.utf8.allSatisfy({
                    $0 == 0x2D || $0 == 0x2E || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                })
            else { throw OIDCError(.invalidRedisURL, "a client name is 1-64 characters of A-Z a-z 0-9 - _ .") }
        }
        guard (1...1024).contains(maximumConnections) else { throw OIDCError(.invalidRedisURL, "maximumConnections must be 1-1024") }
        for (name, value) in [("connectTimeout", connectTimeout), ("commandTimeout", commandTimeout)] {
            guard value.isFinite, value >= 0.001, value <= 3600 else { throw OIDCError(.invalidRedisURL, "\(name) must be 0.001-3600 seconds") }
        }
        let endpoint = try RedisEndpoint(url: url)
        let tls: TLSContext?
        if endpoint.isTLS {
            do { tls = try TLSContext(trust: caFile.map { .caFile($0) } ?? .system, identity: nil) } catch {
                throw OIDCError(.invalidRedisURL, "TLS cannot be set up: \(error.message)")
            }
        } else {
            tls = nil
        }
        self.endpoint = endpoint
        self.maximumConnections = maximumConnections
        pool = ConnectionPool(maximumConnections: maximumConnections, closedError: { OIDCError(.redisUnavailable, "the Redis pool was closed") }) { forLease in
            RedisWorker(
                connection: RedisConnection(
                    endpoint: endpoint, tls: tls, connectTimeout: connectTimeout, commandTimeout: commandTimeout, clientName: clientName),
                name: forLease ? "OIDCRedis lease connection" : "OIDCRedis connection")
        }
        subscriber = ChangeListener(threadName: "OIDCRedis subscriber") {
            // Reads with its own short waits; a command deadline only bounds its SUBSCRIBE.
            RedisChangeFeed(
                connection: RedisConnection(
                    endpoint: endpoint, tls: tls, connectTimeout: connectTimeout, commandTimeout: commandTimeout, clientName: clientName))
        }
    }

    deinit { close() }

    /// `RedisDatabase(connections: N)`: never the URL (it may hold a password).
    public var description: String { "RedisDatabase(connections: \(maximumConnections))" }
    /// Only the pool size: the URL may hold a password.
    public var customMirror: Mirror { Mirror(self, children: ["maximumConnections": maximumConnections]) }

    /// Closes every connection and ends the pool's threads. Later calls fail with `redis_unavailable`.
    public func close() {
        pool.close()
        subscriber.stop()
    }

    /// The message the subscriber delivers for a change of `key` in this database.
    package func changeMessage(_ key: String) -> String { "\(endpoint.database) \(key)" }

    /// Runs one command on a pooled connection.
    package func command(_ arguments: [[UInt8]]) async throws -> RedisValue {
        let worker = try await pool.acquire()
        commands.withLock { $0 += 1 }
        defer { pool.release(worker) }
        return try await worker.run { try Self.once(arguments, on: $0) }
    }

    /// One command, sent again once on a reopened connection when the connection dropped before its reply (as
    /// `OIDCPostgres` retries a statement once): the stores' scripts are fenced or idempotent, or fail closed.
    private static func once(_ arguments: [[UInt8]], on connection: RedisConnection) throws -> RedisValue {
        do {
            return try connection.command(arguments)
        } catch let error as OIDCError where error.code == .redisUnavailable {
            return try connection.command(arguments)
        }
    }

    /// Runs one command on the lease connection (never waiting for the pool). With `abandonable`, a cancelled
    /// caller stops waiting at once (`CancellationError`) while the command runs to its end, before any later one.
    package func commandForLease(_ arguments: [[UInt8]], abandonable: Bool = false) async throws -> RedisValue {
        let worker = try pool.leaseWorker()
        commands.withLock { $0 += 1 }
        let run: @Sendable (RedisConnection) throws -> RedisValue = { try Self.once(arguments, on: $0) }
        return abandonable ? try await worker.runAbandonable(run) : try await worker.run(run)
    }

    /// `EVAL script numkeys keys… args…` on the pool (or the lease connection).
    package func eval(_ script: String, keys: [String], arguments: [[UInt8]], lease: Bool = false, abandonable: Bool = false) async throws -> RedisValue {
        let command = [Array("EVAL".utf8), Array(script.utf8), Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + arguments
        return lease ? try await commandForLease(command, abandonable: abandonable) : try await self.command(command)
    }
}

/// A thread owning one ``RedisConnection`` (the pool's and the lease connection's).
typealias RedisWorker = ConnectionWorker<RedisConnection>

extension RedisConnection: BlockingConnection {}
