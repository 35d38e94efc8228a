import OIDCSession

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `LISTEN` connection of ``PostgresDatabase``'s ``ChangeListener``: libpq runs only on the listener's thread
/// (`poll` on the socket, then `PQconsumeInput`/`PQnotifies`).
final class PGChangeFeed: ChangeFeedConnection {
    /// The channel every store of this module notifies on.
    static let channel = "oidc_toolkit_rows"

    private let connection: PGConnection

    init(conninfo: String) { connection = PGConnection(conninfo: conninfo) }

    /// `LISTEN` on ``channel``: listening as soon as the statement succeeded.
    func subscribe() throws -> Bool {
        _ = try connection.execute("LISTEN \(Self.channel)")
        return true
    }

    func read(within seconds: Double) throws -> ChangeFeedRead {
        guard let socket = connection.socket else { throw OIDCError(.databaseUnavailable, "the listening connection is closed") }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(seconds * 1000))
        if ready < 0 && errno != EINTR { throw OIDCError(.databaseUnavailable, "the listening connection's socket failed") }
        if ready <= 0 { return .nothing }
        guard let payloads = connection.consumeNotifications(channel: Self.channel) else {
            throw OIDCError(.databaseUnavailable, "the listening connection dropped")
        }
        return .payloads(payloads)
    }

    func close() { connection.close() }
}
