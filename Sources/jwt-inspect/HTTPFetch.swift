import CLibSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 GET client over POSIX sockets, with TLS through libssl
/// (system trust store, SNI, host name verification). Enough to fetch a JWK Set
/// or a discovery document without loading FoundationNetworking: the offline
/// path of the tool stays fast to start. Redirects are not followed.
enum HTTPFetch {
    static let timeoutSeconds: Int32 = 10
    static let maxResponseBytes = 2 << 20

    struct Target {
        let isTLS: Bool
        let host: String
        let port: String
        let path: String
        var hostHeader: String {
            let bracketed = host.contains(":") ? "[\(host)]" : host
            let defaultPort = isTLS ? "443" : "80"
            return port == defaultPort ? bracketed : "\(bracketed):\(port)"
        }
    }

    /// GETs `url` and returns the body of a 200 response.
    static func get(_ url: String) throws(SetupError) -> [UInt8] {
        let target = try parse(url)
        let socket = try connect(target, url: url)
        defer { close(socket) }
        let request = "GET \(target.path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nUser-Agent: jwt-inspect\r\n"
            + "Accept: application/json\r\nConnection: close\r\n\r\n"
        let raw = target.isTLS ? try exchangeTLS(socket: socket, host: target.host, request: request, url: url)
            : try exchangePlain(socket: socket, request: request, url: url)
        return try HTTPResponseParser.body(of: raw, url: url)
    }

    static func parse(_ url: String) throws(SetupError) -> Target {
        let isTLS: Bool
        let rest: Substring
        if url.hasPrefix("https://") {
            isTLS = true; rest = url.dropFirst(8)
        } else if url.hasPrefix("http://") {
            isTLS = false; rest = url.dropFirst(7)
        } else {
            throw SetupError("\(url) is not an http:// or https:// URL")
        }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[rest.startIndex..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if let hash = path.firstIndex(of: "#") { path = String(path[path.startIndex..<hash]) }
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        guard !authority.isEmpty, !authority.contains("@") else { throw SetupError("\(url) has no usable host") }
        var host: String
        var port = isTLS ? "443" : "80"
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw SetupError("\(url) has a malformed IPv6 host") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { port = String(after.dropFirst()) }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[authority.startIndex..<colon])
            port = String(authority[authority.index(after: colon)...])
        } else {
            host = String(authority)
        }
        guard !host.isEmpty, let portNumber = Int(port), (1...65535).contains(portNumber) else {
            throw SetupError("\(url) has an invalid host or port")
        }
        host = host.lowercased()
        return Target(isTLS: isTLS, host: host, port: port, path: path)
    }

    static func connect(_ target: Target, url: String) throws(SetupError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var results: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(target.host, target.port, &hints, &results)
        guard status == 0, let first = results else {
            throw SetupError("cannot resolve \(target.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(results) }
        var lastError = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd < 0 { continue }
            if connectWithTimeout(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) {
                var timeout = timeval(tv_sec: Int(timeoutSeconds), tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                return fd
            }
            lastError = String(cString: strerror(errno))
            close(fd)
        }
        throw SetupError("cannot connect to \(target.host):\(target.port): \(lastError)")
    }

    private static func connectWithTimeout(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t) -> Bool {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        if Glibc.connect(fd, address, length) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&descriptor, 1, timeoutSeconds * 1000) == 1 else { errno = ETIMEDOUT; return false }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
        errno = error
        return error == 0
    }

    private static func exchangePlain(socket: Int32, request: String, url: String) throws(SetupError) -> [UInt8] {
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw SetupError("sending the request to \(url) failed: \(String(cString: strerror(errno)))") }
            sent += count
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count < 0 {
                throw SetupError(errno == EAGAIN || errno == EWOULDBLOCK ? "\(url) did not answer within \(timeoutSeconds) s"
                    : "reading from \(url) failed: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            response += chunk[0..<count]
            guard response.count <= maxResponseBytes else { throw SetupError("the response from \(url) exceeds \(maxResponseBytes) bytes") }
        }
        return response
    }

    private static func exchangeTLS(socket: Int32, host: String, request: String, url: String) throws(SetupError) -> [UInt8] {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw SetupError("cannot initialise TLS") }
        defer { SSL_CTX_free(context) }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard SSL_CTX_set_default_verify_paths(context) == 1, let ssl = SSL_new(context) else {
            ERR_clear_error()
            throw SetupError("cannot load the system's trusted certificates")
        }
        defer { SSL_free(ssl) }
        SSL_set_fd(ssl, socket)
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        if !isAddress { _ = jose_ssl_set_sni(ssl, host) }
        _ = SSL_set1_host(ssl, host)
        guard SSL_connect(ssl) == 1, SSL_get_verify_result(ssl) == X509_V_OK else {
            let verify = SSL_get_verify_result(ssl)
            let reason = verify != X509_V_OK ? String(cString: X509_verify_cert_error_string(verify)) : "handshake failed"
            ERR_clear_error()
            throw SetupError("TLS with \(host) failed: \(reason)")
        }
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ SSL_write(ssl, $0.baseAddress, Int32($0.count)) }) == Int32(bytes.count) else {
            ERR_clear_error()
            throw SetupError("sending the request to \(url) failed")
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count <= 0 {
                let error = SSL_get_error(ssl, count)
                ERR_clear_error()
                if error == SSL_ERROR_ZERO_RETURN || (error == SSL_ERROR_SYSCALL && errno == 0) { break }
                throw SetupError("reading from \(url) failed or timed out")
            }
            response += chunk[0..<Int(count)]
            guard response.count <= maxResponseBytes else { throw SetupError("the response from \(url) exceeds \(maxResponseBytes) bytes") }
        }
        return response
    }
}

/// Splits a raw HTTP/1.1 response into status, headers and body.
enum HTTPResponseParser {
    static func body(of raw: [UInt8], url: String) throws(SetupError) -> [UInt8] {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headerEnd = find(separator, in: raw) else { throw SetupError("\(url) sent no complete HTTP response") }
        let head = String(decoding: raw[0..<headerEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw SetupError("\(url) did not answer with HTTP/1.x")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[line.startIndex..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
        }
        if (300..<400).contains(status) {
            throw SetupError("\(url) answered HTTP \(status) (redirect to \(headers["location"] ?? "?")); redirects are not followed")
        }
        guard status == 200 else { throw SetupError("\(url) answered HTTP \(status)") }
        var body = Array(raw[(headerEnd + 4)...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body, url: url)
        } else if let lengthText = headers["content-length"], let length = Int(lengthText) {
            guard body.count >= length else { throw SetupError("\(url) sent a truncated body") }
            body = Array(body.prefix(length))
        }
        return body
    }

    static func dechunk(_ body: [UInt8], url: String) throws(SetupError) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < body.count {
            guard let lineEnd = find([13, 10], in: Array(body[index...])) else { throw SetupError("\(url) sent a malformed chunked body") }
            let sizeText = String(decoding: body[index..<index + lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: " "), radix: 16) else { throw SetupError("\(url) sent a malformed chunk size") }
            index += lineEnd + 2
            if size == 0 { break }
            guard index + size <= body.count else { throw SetupError("\(url) sent a truncated chunk") }
            out += body[index..<index + size]
            index += size + 2
        }
        return out
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        String(self.drop(while: { set.contains($0) }).reversed().drop(while: { set.contains($0) }).reversed())
    }
}
