import Foundation
import NIOCore

/// The client's address as the scope a login is counted under (each address gets its own share of the
/// pending-login and request-object stores, so one address that floods `/login` fills only its share).
///
/// - IPv4: the address. IPv6: its /64 network (one host usually holds a whole /64, so a finer scope would
///   give a single client 2^64 shares). An IPv4-mapped IPv6 address counts as its IPv4 address.
/// - Behind a reverse proxy every connection comes from the proxy: `--client-address-header NAME` names the
///   header the proxy sets to the client's address (e.g. `X-Real-IP`; for `X-Forwarded-For` its last entry,
///   the one the proxy appended, is taken). Only a proxy that overwrites or appends that header may be
///   trusted this way; a request without a readable value counts under the connection's address.
enum ClientAddress {
    /// The scope for a request from `peer` carrying `forwarded` (the configured header's value, if any);
    /// `nil` when neither gives an IP address (a Unix socket).
    static func scope(peer: SocketAddress?, forwarded: String?) -> String? {
        if let forwarded, let last = forwarded.split(separator: ",").last {
            let text = last.trimmingCharacters(in: .whitespaces)
            if let address = try? SocketAddress(ipAddress: text, port: 0), let scope = scope(of: address) { return scope }
        }
        return peer.flatMap(scope(of:))
    }

    /// IPv4 as is, IPv6 as its /64 (`2001:db8:1:2::/64`), IPv4-mapped IPv6 as IPv4.
    static func scope(of address: SocketAddress) -> String? {
        switch address {
        case .v4:
            return address.ipAddress
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            guard bytes.count == 16 else { return nil }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return bytes[12..<16].map(String.init).joined(separator: ".")
            }
            let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            return groups.joined(separator: ":") + "::/64"
        case .unixDomainSocket:
            return nil
        }
    }
}
