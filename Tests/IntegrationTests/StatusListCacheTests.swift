import Foundation
import JOSE
import OIDC
import TestProcesses
import Testing

/// `StatusListCache` against Tests/Support/credential_host.py: valid, revoked and suspended entries fetched and
/// verified, kept by `ttl`, refused from another issuer's keys, oversize and outages typed, the fetch policy applied.
@Suite(
    "Token Status List: fetched, verified and cached (scripted server)",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct StatusListCacheTests {
    /// A clock the test moves.
    final class TestClock: @unchecked Sendable {
        private let lock = NSLock()
        private var now = Date()
        func read() -> Date { lock.withLock { now } }
        func advance(_ seconds: TimeInterval) { lock.withLock { now += seconds } }
    }

    struct Host {
        let server: FaultServer
        let key: JWK
        let transport: any HTTPTransport

        static func start() async throws -> Host {
            Host(server: try await FaultServer.start(script: "credential_host.py"), key: try JWK.generate(.ec(.p256)), transport: try LibSSLTransport())
        }

        var keys: JWKSet { JWKSet(keys: [key]) }
        var policy: RemoteFetchPolicy {
            get throws { RemoteFetchPolicy(allowedHosts: [try .init(host: "127.0.0.1", port: try #require(server.url("/").port))]) }
        }

        /// Signs and stores a status list token for `name` with statuses `[valid, revoked, suspended, 3]` (2 bits).
        func publish(_ name: String, ttl: Int64? = 600, key: JWK? = nil, at now: Date = Date()) async throws {
            var claims: [(String, JSONValue)] = [
                ("sub", .string(server.base + "/lists/" + name)), ("iat", .integer(Int64(now.timeIntervalSince1970))),
                // 2-bit entries 0, 1, 2, 3 in one byte: 0b11_10_01_00.
                ("status_list", ["bits": 2, "lst": .string(try Self.lst([0b1110_0100]))]),
            ]
            if let ttl { claims.append(("ttl", .integer(ttl))) }
            let token = try JWT.sign(JSONObject(claims), key: key ?? self.key, algorithm: .es256, header: ["typ": "statuslist+jwt"])
            let response = try await transport.send(
                TransportRequest(method: .put, url: server.url("/lists/" + name), body: .bytes(Array(token.utf8))))
            #expect(response.status == 204)
        }

        func fetches(_ name: String) async throws -> Int {
            let response = try await transport.send(TransportRequest(url: server.url("/count/" + name)))
            return Int(String(decoding: response.body, as: UTF8.self)) ?? -1
        }

        func reference(_ name: String, _ index: Int) -> StatusListReference {
            StatusListReference(index: index, uri: server.base + "/lists/" + name)
        }

        static func lst(_ bytes: [UInt8]) throws -> String {
            // zlib stream of a stored (uncompressed) block: header 78 01, BFINAL|stored, LEN, NLEN, data, Adler-32.
            var stream: [UInt8] = [0x78, 0x01, 0x01]
            let count = UInt16(bytes.count)
            stream += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8(~count >> 8)]
            stream += bytes
            var a: UInt32 = 1
            var b: UInt32 = 0
            for byte in bytes {
                a = (a + UInt32(byte)) % 65521
                b = (b + a) % 65521
            }
            let adler = (b << 16) | a
            stream += [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
            return Data(stream).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
    }

    func cache(_ host: Host, clock: TestClock? = nil) throws -> StatusListCache {
        var configuration = StatusListCache.Configuration()
        configuration.fetchPolicy = try host.policy
        if let clock { configuration.clock = { clock.read() } }
        return StatusListCache(transport: host.transport, configuration: configuration)
    }

    @Test("valid, revoked, suspended and other entries, each read from the verified list")
    func entries() async throws {
        let host = try await Host.start()
        defer { host.server.stop() }
        try await host.publish("a")
        let cache = try cache(host)
        #expect(try await cache.status(of: host.reference("a", 0), keys: host.keys) == .valid)
        #expect(try await cache.status(of: host.reference("a", 1), keys: host.keys) == .invalid)
        #expect(try await cache.status(of: host.reference("a", 2), keys: host.keys) == .suspended)
        #expect(try await cache.status(of: host.reference("a", 3), keys: host.keys).rawValue == 3)
        do {
            try await cache.status(of: host.reference("a", 1), keys: host.keys).requireValid()
            Issue.record("a revoked credential passed")
        } catch let error as JOSEError { #expect(error.code == .credentialRevoked) }
        do {
            _ = try await cache.status(of: host.reference("a", 4), keys: host.keys)
            Issue.record("an index outside the list passed")
        } catch let error as OIDCError { #expect(error.code == .statusListInvalid) }
        // Six questions, one fetch.
        #expect(try await host.fetches("a") == 1)
    }

    @Test("a list is kept for its ttl, then fetched again")
    func keptForTTL() async throws {
        let host = try await Host.start()
        defer { host.server.stop() }
        let clock = TestClock()
        try await host.publish("t", ttl: 120, at: clock.read())
        let cache = try cache(host, clock: clock)
        _ = try await cache.status(of: host.reference("t", 0), keys: host.keys)
        clock.advance(60)
        _ = try await cache.status(of: host.reference("t", 0), keys: host.keys)
        #expect(try await host.fetches("t") == 1)
        clock.advance(61)
        _ = try await cache.status(of: host.reference("t", 0), keys: host.keys)
        #expect(try await host.fetches("t") == 2)
    }

    @Test("a list signed by another issuer's key is refused, even when another caller's keys verified it")
    func otherIssuerKeys() async throws {
        let host = try await Host.start()
        defer { host.server.stop() }
        try await host.publish("k")
        let cache = try cache(host)
        _ = try await cache.status(of: host.reference("k", 0), keys: host.keys)
        let stranger = JWKSet(keys: [try JWK.generate(.ec(.p256))])
        do {
            _ = try await cache.status(of: host.reference("k", 0), keys: stranger)
            Issue.record("another issuer's keys were answered from the cache")
        } catch let error as OIDCError { #expect(error.code == .statusListInvalid) }
    }

    @Test("oversize, outage, missing list, and a host the fetch policy refuses: each typed")
    func failures() async throws {
        let host = try await Host.start()
        defer { host.server.stop() }
        let cache = try cache(host)
        let cases: [(String, OIDCError.Code)] = [
            ("/big", .statusListTransportFailed), ("/fail", .statusListHTTPStatus), ("/lists/none", .statusListHTTPStatus),
        ]
        for (path, code) in cases {
            do {
                _ = try await cache.status(of: StatusListReference(index: 0, uri: host.server.base + path), keys: host.keys)
                Issue.record("\(path) passed")
            } catch let error as OIDCError { #expect(error.code == code, "\(path): \(error)") }
        }
        // The default policy: public hosts on 443 only, so the loopback server is never asked.
        let strict = StatusListCache(transport: host.transport)
        try await host.publish("p")
        do {
            _ = try await strict.status(of: host.reference("p", 0), keys: host.keys)
            Issue.record("a loopback status list passed the default fetch policy")
        } catch let error as OIDCError { #expect(error.code == .statusListHostRefused) }
        #expect(try await host.fetches("p") == 0)
    }
}
