import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as bytes, and the one rule of ``RemoteFetchPolicy`` for which addresses are
/// internal (not on the public internet).
package struct HostAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 bytes (IPv6), in network order.
    package let bytes: [UInt8]

    /// An address from its 4 or 16 bytes; `nil` for any other length.
    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The address a URL host denotes when it is an IP literal, parsed as the resolver parses it: IPv6 with
    /// `inet_pton` (brackets removed), IPv4 with `inet_aton`, so every encoding a transport would connect to
    /// counts (`127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1`). `nil` when `host` is a name.
    package init?(literal host: String) {
        var text = host
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.contains(":") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
            self.bytes = withUnsafeBytes(of: &address) { Array($0) }
        } else {
            // inet_aton accepts 1 to 4 parts, each decimal, octal (leading 0) or hex (0x); a name never parses.
            guard !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isASCIIHexDigit || $0 == "." || $0 == "x" || $0 == "X") }) else {
                return nil
            }
            var address = in_addr()
            guard inet_aton(text, &address) != 0 else { return nil }
            self.bytes = withUnsafeBytes(of: &address) { Array($0) }
        }
    }

    /// Dotted IPv4, or IPv6 as `inet_ntop` writes it.
    package var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Why the address is internal, or `nil` when it is a public unicast address. IPv4: 0/8 (unspecified,
    /// "this network"), 10/8, 172.16/12, 192.168/16 (RFC 1918), 100.64/10 (RFC 6598 shared), 127/8 (loopback),
    /// 169.254/16 (link-local), 192.0.0/24 (IETF protocol assignments), 198.18/15 (benchmarking), 224/4
    /// (multicast), 240/4 (reserved, broadcast). IPv6: `::` and `::1`, fc00::/7 (unique-local), fe80::/10
    /// (link-local), fec0::/10 (site-local), ff00::/8 (multicast), 100::/64 (discard), 64:ff9b:1::/48 (local
    /// NAT64), 2001::/32 (Teredo); and the IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
    /// (`::a.b.c.d`), NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address is judged as IPv4.
    package var internalKind: String? {
        if bytes.count == 4 { return Self.ipv4Kind(bytes) }
        let b = bytes
        func prefixIsZero(_ n: Int) -> Bool { b.prefix(n).allSatisfy { $0 == 0 } }
        if b.allSatisfy({ $0 == 0 }) { return "the unspecified address" }
        if prefixIsZero(15), b[15] == 1 { return "a loopback address" }
        if prefixIsZero(10), b[10] == 0xFF, b[11] == 0xFF { return Self.ipv4Kind(Array(b[12...])).map { "IPv4-mapped: " + $0 } }
        if prefixIsZero(12) { return Self.ipv4Kind(Array(b[12...])).map { "IPv4-compatible: " + $0 } ?? "an IPv4-compatible address" }
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B {
            if b[4...11].allSatisfy({ $0 == 0 }) { return Self.ipv4Kind(Array(b[12...])).map { "NAT64: " + $0 } }
            if b[4] == 0x00, b[5] == 0x01 { return "a local-use NAT64 address" }
        }
        if b[0] == 0x20, b[1] == 0x02 { return Self.ipv4Kind(Array(b[2...5])).map { "6to4: " + $0 } }
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x00, b[3] == 0x00 { return "a Teredo address" }
        if b[0] == 0x01, b[1...7].allSatisfy({ $0 == 0 }) { return "a discard-only address" }
        if b[0] & 0xFE == 0xFC { return "a unique-local address (fc00::/7)" }
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return "a link-local address (fe80::/10)" }
        if b[0] == 0xFE, b[1] & 0xC0 == 0xC0 { return "a site-local address (fec0::/10)" }
        if b[0] == 0xFF { return "a multicast address" }
        return nil
    }

    private static func ipv4Kind(_ b: [UInt8]) -> String? {
        switch (b[0], b[1], b[2]) {
        case (0, _, _): return b.allSatisfy { $0 == 0 } ? "the unspecified address" : "a \"this network\" address (0/8)"
        case (10, _, _), (172, 16...31, _), (192, 168, _): return "a private address (RFC 1918)"
        case (100, 64...127, _): return "a shared address (RFC 6598)"
        case (127, _, _): return "a loopback address"
        case (169, 254, _): return "a link-local address (169.254/16)"
        case (192, 0, 0): return "an IETF protocol address (192.0.0/24)"
        case (198, 18...19, _): return "a benchmarking address (198.18/15)"
        case (224...239, _, _): return "a multicast address"
        case (240...255, _, _): return "a reserved or broadcast address"
        default: return nil
        }
    }

    /// Every address `name` resolves to with `getaddrinfo` (TCP, IPv4 and IPv6), on a Dispatch thread so the
    /// caller's executor is not blocked; `nil` when it does not resolve.
    package static func resolve(_ name: String) async -> [HostAddress]? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: resolveBlocking(name)) }
        }
    }

    private static func resolveBlocking(_ name: String) -> [HostAddress]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var addresses: [HostAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let entry = node {
            if let socketAddress = entry.pointee.ai_addr {
                switch Int32(entry.pointee.ai_family) {
                case AF_INET:
                    var address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    if let parsed = HostAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }) { addresses.append(parsed) }
                case AF_INET6:
                    var address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    if let parsed = HostAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }) { addresses.append(parsed) }
                default:
                    break
                }
            }
            node = entry.pointee.ai_next
        }
        return addresses.isEmpty ? nil : addresses
    }
}
