import OIDCSession

/// The `SUBSCRIBE` connection of ``RedisDatabase``'s ``ChangeListener``: its socket is read only on the
/// listener's thread (a bounded `poll`, then the pushes).
final class RedisChangeFeed: ChangeFeedConnection {
    /// The channel every store of this module publishes on (messages name the database number and the key,
    /// since publish/subscribe is shared by every database of a server).
    static let channel = "oidc-toolkit:changes"

    private let connection: RedisConnection

    init(connection: RedisConnection) { self.connection = connection }

    /// Sends `SUBSCRIBE`; the server's `subscribe` push, read later, confirms it.
    func subscribe() throws -> Bool {
        try connection.sendOnly([Array("SUBSCRIBE".utf8), Array(Self.channel.utf8)])
        return false
    }

    func read(within seconds: Double) throws -> ChangeFeedRead {
        guard let push = try connection.nextPush(within: seconds), case .array(let parts) = push, parts.count == 3,
            let kind = try? parts[0].text("push kind")
        else { return .nothing }
        if kind == "subscribe" { return .subscribed }
        if kind == "message", let payload = try? parts[2].text("message") { return .payloads([payload]) }
        return .nothing
    }

    func close() { connection.close() }
}
