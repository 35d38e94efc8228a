import OIDC

/// Where and how to connect, parsed from a `redis://` or `rediss://` URL:
/// `redis[s]://[[user]:password@]host[:port][/db]`. The password is percent-decoded and never printed.
package struct RedisEndpoint: Sendable {
    package let isTLS: Bool
    package let host: String
    package let port: String
    package let user: String?
    package let password: String?
    package let database: Int

    /// - Throws: `invalid_redis_url` (the reason never contains the password).
    package init(url: String) throws {
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw OIDCError(.invalidRedisURL, "the Redis URL contains spaces, control or non-ASCII characters")
        }
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("rediss://") {
            isTLS = true; rest = url.dropFirst(9)
        } else if lower.hasPrefix("redis://") {
            isTLS = false; rest = url.dropFirst(8)
        } else {
            throw OIDCError(.invalidRedisURL, "a Redis URL starts with redis:// or rediss://")
        }
        guard !rest.contains("?"), !rest.contains("#") else {
            throw OIDCError(.invalidRedisURL, "a Redis URL takes no query or fragment (the pool's settings are parameters)")
        }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[rest.startIndex..<authorityEnd]
        let path = rest[authorityEnd...].dropFirst()
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[authority.startIndex..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let name = try Self.decode(credentials[credentials.startIndex..<colon])
                user = name.isEmpty ? nil : name
                password = try Self.decode(credentials[credentials.index(after: colon)...])
            } else {
                user = nil
                password = try Self.decode(credentials)  // redis://password@host, as redis-cli reads it
            }
        } else {
            user = nil
            password = nil
        }
        var host: String
        var port = "6379"
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw OIDCError(.invalidRedisURL, "the Redis URL has a malformed IPv6 host") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                port = String(after.dropFirst())
            } else if !after.isEmpty {
                throw OIDCError(.invalidRedisURL, "the Redis URL has a malformed IPv6 host")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[authority.startIndex..<colon])
            port = String(authority[authority.index(after: colon)...])
        } else {
            host = String(authority)
        }
        guard !host.isEmpty, let portNumber = Int(port), (1...65535).contains(portNumber) else {
            throw OIDCError(.invalidRedisURL, "the Redis URL has no usable host or port")
        }
        if path.isEmpty {
            database = 0
        } else {
            guard path.count <= 5, let number = Int(path), (0...65_535).contains(number) else {
                throw OIDCError(.invalidRedisURL, "the Redis URL's path is a database number (0-65535)")
            }
            database = number
        }
        host = host.lowercased()
        self.host = host
        self.port = String(portNumber)
    }

    /// Percent-decoding of a user name or password (`%40` for `@`, `%3A` for `:`).
    private static func decode(_ text: Substring) throws -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else {
                throw OIDCError(.invalidRedisURL, "the Redis URL's credentials hold an invalid percent-escape")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw OIDCError(.invalidRedisURL, "the Redis URL's credentials are not UTF-8")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
