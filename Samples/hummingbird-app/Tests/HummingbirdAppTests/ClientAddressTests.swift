import NIOCore
import Testing

@testable import hummingbird_app

@Suite("hummingbird-app: the client address a login is counted under")
struct ClientAddressTests {
    @Test("IPv4 as is, IPv6 by its /64, IPv4-mapped IPv6 as IPv4")
    func scopes() throws {
        #expect(ClientAddress.scope(of: try SocketAddress(ipAddress: "203.0.113.9", port: 1)) == "203.0.113.9")
        #expect(ClientAddress.scope(of: try SocketAddress(ipAddress: "2001:db8:1:2:aaaa::1", port: 1)) == "2001:db8:1:2::/64")
        #expect(ClientAddress.scope(of: try SocketAddress(ipAddress: "2001:db8:1:2:ffff::9", port: 1)) == "2001:db8:1:2::/64")
        #expect(ClientAddress.scope(of: try SocketAddress(ipAddress: "::ffff:198.51.100.7", port: 1)) == "198.51.100.7")
    }

    @Test("the proxy's header wins when it holds an address (its last entry); else the connection's address")
    func forwarded() throws {
        let peer = try SocketAddress(ipAddress: "127.0.0.1", port: 40_000)
        #expect(ClientAddress.scope(peer: peer, forwarded: nil) == "127.0.0.1")
        #expect(ClientAddress.scope(peer: peer, forwarded: "198.51.100.7") == "198.51.100.7")
        #expect(ClientAddress.scope(peer: peer, forwarded: "10.9.9.9, 203.0.113.9") == "203.0.113.9")
        #expect(ClientAddress.scope(peer: peer, forwarded: "not an address") == "127.0.0.1")
        #expect(ClientAddress.scope(peer: nil, forwarded: nil) == nil)
    }
}
