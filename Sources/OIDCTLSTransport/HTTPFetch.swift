import CLibSSL
import JOSE

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 client over POSIX sockets, with TLS through libssl (TLS 1.2 at
/// least, SNI, host name or IP address verification; the system trust store or a given CA
/// file; optionally a client certificate). jwt-inspect fetches JWK Sets and discovery
/// documents with it without loading FoundationNetworking; ``LibSSLTransport`` sends any
/// request with it. Redirects are not followed; one request per connection.
///
/// One deadline covers the whole exchange (resolving aside): connecting, the TLS
/// handshake, sending and reading; a server that sends one byte every few seconds
/// is cut off when it passes. The socket is non-blocking and every wait is a `poll`
/// bounded by the time left.
package enum HTTPFetch {
    /// The default response limit (body), in bytes.
    package static let maxResponseBytes = 2 << 20

    /// Where a request goes: scheme, host, port and the request target (path and query).
    package struct Target: Sendable {
        package let isTLS: Bool
        package let host: String
        package let port: String
        package let path: String
        /// The `Host` header value (the port only when it is not the scheme's default).
        package var hostHeader: String {
            let bracketed = host.contains(":") ? "[\(host)]" : host
            let defaultPort = isTLS ? "443" : "80"
            return port == defaultPort ? bracketed : "\(bracketed):\(port)"
        }
    }

    /// GETs `url` (already checked by the caller's URL rule) with the system's trusted certificates
    /// and returns the response, whatever its status.
    package static func get(
        _ url: String, userAgent: String, deadlineSeconds: Double,
        limit: Int = maxResponseBytes, accept: String = "application/json"
    ) throws(FetchError) -> ParsedHTTPResponse {
        let target = try parse(url)
        // A media type only (token characters and `/`, `+`, `.`, `-`): nothing that could end the header line.
        let acceptable =
            !accept.isEmpty
            && accept.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "/+.-_*;= ,".utf8.contains(byte)
            }
        let request =
            "GET \(target.path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nUser-Agent: \(userAgent)\r\n"
            + "Accept: \(acceptable ? accept : "application/json")\r\nConnection: close\r\n\r\n"
        let tls = target.isTLS ? try TLSContext(trust: .system, identity: nil) : nil
        return try exchange(target, request: Array(request.utf8), tls: tls, deadlineSeconds: deadlineSeconds, limit: limit)
    }

    /// Sends the whole `request` (head and body) to `target` and reads the whole response (the
    /// server closes the connection after it), over TLS with `tls` when the target is https.
    package static func exchange(
        _ target: Target, request: [UInt8], tls: TLSContext?, deadlineSeconds: Double,
        limit: Int
    ) throws(FetchError) -> ParsedHTTPResponse {
        let deadline = Deadline(seconds: deadlineSeconds)
        let socket = try connect(target, deadline: deadline)
        defer { close(socket) }
        let raw: [UInt8]
        // Over TLS, an end of stream without close_notify may be an attacker's cut (RFC 8446 §6.1): the body
        // must then carry its own framing. Plain http (loopback only) has no such signal.
        let endIsAuthenticated: Bool
        if target.isTLS {
            guard let tls else { throw .connectionFailed("no TLS configuration for an https request") }
            (raw, endIsAuthenticated) = try exchangeTLS(socket: socket, host: target.host, context: tls, request: request, deadline: deadline, limit: limit)
        } else {
            raw = try exchangePlain(socket: socket, request: request, deadline: deadline, limit: limit)
            endIsAuthenticated = true
        }
        do {
            return try HTTPResponseParser.parse(raw, limit: limit, bodyMayEndAtClose: endIsAuthenticated)
        } catch {
            throw .invalidResponse(error.message)
        }
    }

    /// Printable ASCII only: no blanks, no controls (so no CR/LF can reach the request line).
    package static func hasOnlyURLCharacters(_ text: String) -> Bool { text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } }

    /// Splits an absolute http(s) URL whose text ``FetchURL/check(_:what:)`` accepted.
    package static func parse(_ url: String) throws(FetchError) -> Target {
        guard hasOnlyURLCharacters(url) else { throw .badURL("the URL contains spaces, control or non-ASCII characters") }
        let isTLS: Bool
        let rest: Substring
        if url.lowercased().hasPrefix("https://") {
            isTLS = true; rest = url.dropFirst(8)
        } else if url.lowercased().hasPrefix("http://") {
            isTLS = false; rest = url.dropFirst(7)
        } else {
            throw .badURL("not an http:// or https:// URL")
        }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[rest.startIndex..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if let hash = path.firstIndex(of: "#") { path = String(path[path.startIndex..<hash]) }
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        guard !authority.isEmpty, !authority.contains("@") else { throw .badURL("the URL has no usable host") }
        var host: String
        var port = isTLS ? "443" : "80"
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .badURL("the URL has a malformed IPv6 host") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { port = String(after.dropFirst()) } else if !after.isEmpty { throw .badURL("the URL has a malformed IPv6 host") }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[authority.startIndex..<colon])
            port = String(authority[authority.index(after: colon)...])
        } else {
            host = String(authority)
        }
        guard !host.isEmpty, let portNumber = Int(port), (1...65535).contains(portNumber) else {
            throw .badURL("the URL has an invalid host or port")
        }
        host = host.lowercased()
        return Target(isTLS: isTLS, host: host, port: port, path: path)
    }

    package static func connect(_ target: Target, deadline: Deadline) throws(FetchError) -> Int32 {
        var hints = addrinfo()
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)  // an enum on Glibc
        #else
        hints.ai_socktype = SOCK_STREAM  // an Int32 on Darwin and Musl
        #endif
        hints.ai_family = AF_UNSPEC
        var results: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(target.host, target.port, &hints, &results)
        guard status == 0, let first = results else {
            throw .connectionFailed("cannot resolve \(target.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(results) }
        var lastError = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd < 0 { continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
            #if canImport(Darwin)
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            #endif
            if connectNonBlocking(fd, info.pointee.ai_addr, info.pointee.ai_addrlen, deadline: deadline) { return fd }
            lastError = errno == ETIMEDOUT ? "timed out" : String(cString: strerror(errno))
            close(fd)
            if deadline.hasPassed { throw .timedOut(seconds: deadline.seconds) }
        }
        throw .connectionFailed("cannot connect to \(target.host):\(target.port): \(lastError)")
    }

    private static func connectNonBlocking(
        _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t,
        deadline: Deadline
    ) -> Bool {
        guard let address else { return false }
        if socketConnect(fd, address, length) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        guard deadline.wait(fd, for: Int16(POLLOUT)) else { errno = ETIMEDOUT; return false }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
        errno = error
        return error == 0
    }

    private static func exchangePlain(socket: Int32, request bytes: [UInt8], deadline: Deadline, limit: Int) throws(FetchError) -> [UInt8] {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { sendBytes(socket, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                guard deadline.wait(socket, for: Int16(POLLOUT)) else { throw .timedOut(seconds: deadline.seconds) }
                continue
            }
            guard count > 0 else { throw .connectionFailed("sending the request failed: \(String(cString: strerror(errno)))") }
            sent += count
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                guard deadline.wait(socket, for: Int16(POLLIN)) else { throw .timedOut(seconds: deadline.seconds) }
                continue
            }
            if count < 0 { throw .connectionFailed("reading failed: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            response += chunk[0..<count]
            guard response.count <= limit + HTTPResponseParser.maxHeadBytes else { throw .responseTooLarge(limit) }
        }
        return response
    }

    package static func sendBytes(_ socket: Int32, _ base: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        return send(socket, base, count, Int32(MSG_NOSIGNAL))
        #else
        return send(socket, base, count, 0)  // SO_NOSIGPIPE is set in connect on Darwin
        #endif
    }

    /// - Returns: the raw response, and whether its end was announced by the server's `close_notify`.
    private static func exchangeTLS(
        socket: Int32, host: String, context: TLSContext, request bytes: [UInt8], deadline: Deadline,
        limit: Int
    ) throws(FetchError) -> (response: [UInt8], closedWithNotify: Bool) {
        let api = context.api
        let ssl = try handshake(socket: socket, host: host, context: context, deadline: deadline)
        defer { api.SSL_free?(ssl) }
        let steps = TLSSteps(api: api, ssl: ssl, deadline: deadline)
        var sent = 0
        while sent < bytes.count {
            let count = try steps.run(failure: "sending the request failed") {
                bytes[sent...].withUnsafeBytes { api.SSL_write?(ssl, $0.baseAddress, Int32($0.count)) ?? -1 }
            }
            sent += Int(count)
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = try steps.run(failure: "reading failed", endOfStream: true) {
                chunk.withUnsafeMutableBytes { api.SSL_read?(ssl, $0.baseAddress, Int32($0.count)) ?? -1 }
            }
            if count == 0 { return (response, true) }
            if count == TLSSteps.endWithoutCloseNotify { return (response, false) }
            response += chunk[0..<Int(count)]
            guard response.count <= limit + HTTPResponseParser.maxHeadBytes else { throw .responseTooLarge(limit) }
        }
    }

    /// A TLS connection (`SSL *`, the caller frees it) over the connected non-blocking `socket`, its handshake done
    /// within `deadline` and the server's certificate verified for `host` (a name, with SNI, or an IP address).
    /// The one TLS client set-up of the toolkit: HTTPS here, `rediss://` in OIDCRedis.
    package static func handshake(socket: Int32, host: String, context: TLSContext, deadline: Deadline) throws(FetchError) -> OpaquePointer {
        let api = context.api
        guard let ssl = api.SSL_new?(context.context) else {
            ERR_clear_error()
            throw .connectionFailed("cannot set up a TLS connection")
        }
        var handedOver = false
        defer { if !handedOver { api.SSL_free?(ssl) } }
        _ = api.SSL_set_fd?(ssl, socket)
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        if !isAddress, withUnsafePointer(to: api, { jose_ssl_set_sni($0, ssl, host) }) != 1 {
            ERR_clear_error()
            throw .connectionFailed("cannot set the TLS server name \(host)")
        }
        // Fail closed: without the expected name (or address) set, any valid certificate would be accepted.
        let expected: Int32
        if isAddress {
            expected = api.SSL_get0_param.flatMap { $0(ssl) }.map { X509_VERIFY_PARAM_set1_ip_asc($0, host) } ?? 0
        } else {
            expected = api.SSL_set1_host?(ssl, host) ?? 0
        }
        guard expected == 1 else {
            ERR_clear_error()
            throw .connectionFailed("cannot set the expected certificate name \(host)")
        }
        let steps = TLSSteps(api: api, ssl: ssl, deadline: deadline)
        func verificationFailure() -> FetchError? {
            let verification = api.SSL_get_verify_result?(ssl) ?? -1
            guard verification != X509_V_OK else { return nil }
            return .connectionFailed("TLS with \(host) failed: \(String(cString: X509_verify_cert_error_string(verification)))")
        }
        do {
            try steps.run(failure: "TLS handshake with \(host) failed") { api.SSL_connect?(ssl) ?? -1 }
        } catch {
            throw verificationFailure() ?? error
        }
        if let failure = verificationFailure() { throw failure }
        handedOver = true
        return ssl
    }
}

/// Runs libssl calls on the non-blocking socket until each completes, waiting for the
/// socket as libssl asks, within the deadline.
package struct TLSSteps {
    let api: jose_ssl_table
    let ssl: OpaquePointer
    let deadline: Deadline

    package init(api: jose_ssl_table, ssl: OpaquePointer, deadline: Deadline) {
        self.api = api
        self.ssl = ssl
        self.deadline = deadline
    }

    /// What ``run(failure:endOfStream:_:)`` returns when the peer closed the connection without a TLS
    /// `close_notify`: the bytes read so far may have been cut short by anyone on the path.
    package static let endWithoutCloseNotify: Int32 = -1

    /// Returns the call's positive result; 0 at an end of stream the peer announced with `close_notify`, or
    /// ``endWithoutCloseNotify`` at one it did not, when `endOfStream` allows an end at all.
    @discardableResult
    package func run(failure: String, endOfStream: Bool = false, _ call: () -> Int32) throws(FetchError) -> Int32 {
        let fd = api.SSL_get_fd?(ssl) ?? -1
        while true {
            let result = call()
            if result > 0 { return result }
            let error = api.SSL_get_error?(ssl, result) ?? SSL_ERROR_SSL
            let endedWithoutNotify = error == SSL_ERROR_SSL && jose_ssl_error_is_unexpected_eof() != 0
            ERR_clear_error()
            switch error {
            case SSL_ERROR_WANT_READ:
                guard deadline.wait(fd, for: Int16(POLLIN)) else { throw .timedOut(seconds: deadline.seconds) }
            case SSL_ERROR_WANT_WRITE:
                guard deadline.wait(fd, for: Int16(POLLOUT)) else { throw .timedOut(seconds: deadline.seconds) }
            case SSL_ERROR_ZERO_RETURN where endOfStream:
                return 0
            case SSL_ERROR_SYSCALL where endOfStream && result == 0, SSL_ERROR_SSL where endOfStream && endedWithoutNotify:
                return TLSSteps.endWithoutCloseNotify  // the parser then requires a length or chunked framing
            default:
                throw .connectionFailed(failure)
            }
        }
    }
}

/// The one deadline of a fetch, on the monotonic clock.
package struct Deadline {
    package let end: Double
    package let seconds: Double

    package init(seconds: Double) {
        self.seconds = seconds
        end = Deadline.now() + seconds
    }

    package static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    package var hasPassed: Bool { Deadline.now() >= end }

    /// Waits until `fd` is ready for `events`; `false` when the deadline passes first.
    package func wait(_ fd: Int32, for events: Int16) -> Bool {
        while true {
            let left = end - Deadline.now()
            guard left > 0 else { return false }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let milliseconds = Int32(Swift.min(left * 1000, 60_000).rounded(.up))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return false }
        }
    }
}

/// Why a fetch got no usable response; the message never contains unescaped server text, a key or a passphrase.
package enum FetchError: Error {
    case badURL(String)
    case timedOut(seconds: Double)
    case connectionFailed(String)
    case invalidResponse(String)
    case responseTooLarge(Int)

    package var message: String {
        switch self {
        case .badURL(let reason): return reason
        case .timedOut(let seconds): return "no complete answer within the \(seconds.wholeText) s deadline"
        case .connectionFailed(let reason): return reason
        case .invalidResponse(let reason): return "invalid HTTP response: \(reason)"
        case .responseTooLarge(let limit): return "the response exceeds \(limit) bytes"
        }
    }
}

/// The C `connect`, reachable by name here (inside ``HTTPFetch`` its own `connect` shadows it).
private func socketConnect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}
