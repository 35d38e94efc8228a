import CLibSSL
import JOSE
import OIDC
import OIDCTLSTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to a Redis or Valkey server, used by one thread at a time (a ``RedisWorker``'s, or the
/// subscriber's): RESP2 over a non-blocking socket, through libssl for `rediss://` (``/OIDCTLSTransport``'s
/// one TLS client set-up: TLS 1.2+, the certificate verified for the host). Every wait is a `poll` bounded
/// by the connect or command timeout.
///
/// - Opened on first use; authenticated (`AUTH [user] password`) and switched to the URL's database (`SELECT`).
/// - A connection found closed by the server (readable while idle: `CLIENT KILL`, a restart, an idle timeout)
///   is reopened before the next command; a failed attempt waits a growing pause (50 ms doubling to 2 s)
///   before the next one, within the command's deadline.
/// - Any I/O failure closes it: the next command reopens it. Failures are `redis_unavailable` or
///   `redis_timeout`; an error reply is `redis_error`; bytes that are not RESP are `invalid_redis_value`.
final class RedisConnection {
    let endpoint: RedisEndpoint
    let tls: TLSContext?
    let connectTimeout: Double
    let commandTimeout: Double
    let clientName: String?
    private var fd: Int32 = -1
    private var ssl: OpaquePointer?
    private var buffer: [UInt8] = []
    private var position = 0
    private var pause = 0.05
    private var nextAttempt = 0.0

    init(endpoint: RedisEndpoint, tls: TLSContext?, connectTimeout: Double, commandTimeout: Double, clientName: String? = nil) {
        self.endpoint = endpoint
        self.clientName = clientName
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
    }

    deinit { close() }

    var isOpen: Bool { fd >= 0 }

    func close() {
        if let ssl, let tls { tls.api.SSL_free?(ssl) }
        ssl = nil
        if fd >= 0 { _ = closeDescriptor(fd) }
        fd = -1
        buffer = []
        position = 0
    }

    /// Sends one command and reads its reply.
    /// - Throws: `redis_error` for an error reply, `redis_unavailable`, `redis_timeout`, `invalid_redis_value`.
    func command(_ arguments: [[UInt8]], timeout: Double? = nil) throws -> RedisValue {
        let reply = try exchange(arguments, timeout: timeout)
        if case .error(let message) = reply { throw Self.errorReply(message) }
        return reply
    }

    /// Sends one command and returns its reply, error replies included.
    func exchange(_ arguments: [[UInt8]], timeout: Double? = nil) throws -> RedisValue {
        let deadline = Deadline(seconds: timeout ?? commandTimeout)
        try openIfNeeded(deadline: deadline)
        do {
            try send(RESP.encode(arguments), deadline: deadline)
            guard let reply = try readReply(deadline: deadline) else {
                throw OIDCError(.redisTimeout, "the Redis server did not answer within \((timeout ?? commandTimeout).wholeText) s")
            }
            return reply
        } catch {
            close()  // the reply may still come: this connection's stream is no longer in step
            throw error
        }
    }

    /// Sends a command without reading a reply (SUBSCRIBE, whose confirmations come as pushes).
    func sendOnly(_ arguments: [[UInt8]]) throws {
        let deadline = Deadline(seconds: commandTimeout)
        try openIfNeeded(deadline: deadline)
        do { try send(RESP.encode(arguments), deadline: deadline) } catch {
            close()
            throw error
        }
    }

    /// The next reply or push, waiting at most `seconds`; `nil` when none came (the connection stays usable).
    func nextPush(within seconds: Double) throws -> RedisValue? {
        guard isOpen else { throw OIDCError(.redisUnavailable, "the Redis connection is closed") }
        do { return try readReply(deadline: Deadline(seconds: seconds)) } catch {
            close()
            throw error
        }
    }

    /// An error reply as a typed error: its first word (`ERR`, `WRONGPASS`, `NOSCRIPT` …) and a bounded, escaped excerpt.
    static func errorReply(_ message: String) -> OIDCError {
        let printable = String(message.unicodeScalars.prefix(200).map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
        return OIDCError(.redisError, "the Redis server answered: \(printable)")
    }

    // MARK: opening

    private func openIfNeeded(deadline: Deadline) throws {
        if isOpen, isClosedByPeer() { close() }
        guard !isOpen else { return }
        let wait = nextAttempt - Deadline.now()
        if wait > 0 {
            guard wait < deadline.end - Deadline.now() else {
                throw OIDCError(.redisUnavailable, "the Redis server is unreachable (the next connection attempt is in \(wait.wholeText) s)")
            }
            usleep(UInt32(min(wait, 2) * 1_000_000))
        }
        do {
            try open(deadline: Deadline(seconds: min(connectTimeout, max(0.001, deadline.end - Deadline.now()))))
            pause = 0.05
            nextAttempt = 0
        } catch {
            close()
            nextAttempt = Deadline.now() + pause
            pause = min(pause * 2, 2)
            throw error
        }
    }

    private func open(deadline: Deadline) throws {
        let hostPart = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
        do {
            let target = try HTTPFetch.parse("http://\(hostPart):\(endpoint.port)/")
            fd = try HTTPFetch.connect(target, deadline: deadline)
            var on: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            if endpoint.isTLS {
                guard let tls else { throw OIDCError(.redisUnavailable, "no TLS configuration for a rediss:// connection") }
                ssl = try HTTPFetch.handshake(socket: fd, host: endpoint.host, context: tls, deadline: deadline)
            }
        } catch let error as FetchError {
            if case .timedOut = error { throw OIDCError(.redisTimeout, "connecting to the Redis server: \(error.message)") }
            throw OIDCError(.redisUnavailable, "connecting to the Redis server: \(error.message)")
        }
        if let password = endpoint.password {
            var arguments = [Array("AUTH".utf8)]
            if let user = endpoint.user { arguments.append(Array(user.utf8)) }
            arguments.append(Array(password.utf8))
            try send(RESP.encode(arguments), deadline: deadline)
            guard let reply = try readReply(deadline: deadline) else { throw OIDCError(.redisTimeout, "the Redis server did not answer AUTH in time") }
            if case .error(let message) = reply {
                // Never the password: only the server's first word (WRONGPASS, NOPERM …).
                let word = String((message.split(separator: " ").first ?? "ERR").prefix(32).filter { $0.isLetter || $0 == "_" })
                throw OIDCError(.redisUnavailable, "the Redis server refused the credentials (\(word))")
            }
        }
        if let clientName {
            try send(RESP.encode([Array("CLIENT".utf8), Array("SETNAME".utf8), Array(clientName.utf8)]), deadline: deadline)
            guard let reply = try readReply(deadline: deadline) else {
                throw OIDCError(.redisTimeout, "the Redis server did not answer CLIENT SETNAME in time")
            }
            if case .error(let message) = reply { throw Self.errorReply(message) }
        }
        if endpoint.database != 0 {
            try send(RESP.encode([Array("SELECT".utf8), Array(String(endpoint.database).utf8)]), deadline: deadline)
            guard let reply = try readReply(deadline: deadline) else { throw OIDCError(.redisTimeout, "the Redis server did not answer SELECT in time") }
            if case .error(let message) = reply { throw Self.errorReply(message) }
        }
    }

    /// Whether an idle connection has been closed, or sent something unasked: when its socket is readable with
    /// nothing expected, what is there is read at once (over TLS, records such as session tickets carry no data
    /// and leave it usable).
    private func isClosedByPeer() -> Bool {
        guard fd >= 0 else { return true }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) != 0 else { return position < buffer.count }
        do { return try fill(deadline: Deadline(seconds: 0)) } catch { return true }
    }

    // MARK: I/O

    private func send(_ bytes: [UInt8], deadline: Deadline) throws {
        if let ssl, let tls {
            let steps = TLSSteps(api: tls.api, ssl: ssl, deadline: deadline)
            var sent = 0
            while sent < bytes.count {
                do {
                    let count = try steps.run(failure: "sending to the Redis server failed") {
                        bytes[sent...].withUnsafeBytes { tls.api.SSL_write?(ssl, $0.baseAddress, Int32($0.count)) ?? -1 }
                    }
                    sent += Int(count)
                } catch {
                    throw Self.typed(error, "sending to the Redis server")
                }
            }
            return
        }
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { HTTPFetch.sendBytes(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                guard deadline.wait(fd, for: Int16(POLLOUT)) else { throw OIDCError(.redisTimeout, "sending to the Redis server timed out") }
                continue
            }
            guard count > 0 else { throw OIDCError(.redisUnavailable, "sending to the Redis server failed: the connection dropped") }
            sent += count
        }
    }

    /// One whole reply; `nil` when the deadline passed before it was complete.
    private func readReply(deadline: Deadline) throws -> RedisValue? {
        while true {
            if let (value, next) = try RESP.parse(buffer, from: position) {
                position = next
                if position == buffer.count {
                    buffer.removeAll(keepingCapacity: true)
                    position = 0
                } else if position > 65_536 {
                    buffer.removeFirst(position)
                    position = 0
                }
                return value
            }
            guard try fill(deadline: deadline) else { return nil }
        }
    }

    /// Reads more bytes into the buffer; `false` when the deadline passed first.
    private func fill(deadline: Deadline) throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        if let ssl, let tls {
            let steps = TLSSteps(api: tls.api, ssl: ssl, deadline: deadline)
            let count: Int32
            do {
                count = try steps.run(failure: "reading from the Redis server failed", endOfStream: true) {
                    chunk.withUnsafeMutableBytes { tls.api.SSL_read?(ssl, $0.baseAddress, Int32($0.count)) ?? -1 }
                }
            } catch {
                if case .timedOut = error { return false }
                throw Self.typed(error, "reading from the Redis server")
            }
            guard count > 0 else { throw OIDCError(.redisUnavailable, "the Redis server closed the connection") }
            buffer += chunk[0..<Int(count)]
        } else {
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0, errno == EINTR { continue }
                if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    guard deadline.wait(fd, for: Int16(POLLIN)) else { return false }
                    continue
                }
                guard count > 0 else { throw OIDCError(.redisUnavailable, "the Redis server closed the connection") }
                buffer += chunk[0..<count]
                break
            }
        }
        guard buffer.count - position <= RESP.maxBulkBytes + 65_536 else {
            throw OIDCError(.invalidRedisValue, "the server's reply is larger than allowed")
        }
        return true
    }

    private static func typed(_ error: FetchError, _ what: String) -> OIDCError {
        if case .timedOut = error { return OIDCError(.redisTimeout, "\(what): \(error.message)") }
        return OIDCError(.redisUnavailable, "\(what): \(error.message)")
    }
}

/// The C `close`, reachable by name inside ``RedisConnection`` (whose own `close` shadows it).
private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
