import Foundation
import JOSE
import OIDC
import OIDCResourceServer
import OIDCSession
import Testing

@testable import OIDCRedis

@Suite("RedisPendingLoginStore, RedisSessionIndex and RedisReplayCache against a real server (REDIS_URL)", .enabled(if: TestRedis.enabled))
struct RedisSharedStoresTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static func at(_ offset: TimeInterval) -> Date { t0.addingTimeInterval(offset) }

    @Test("a pending login is consumed exactly once among 24 concurrent callbacks on 4 replicas; sealed; the key is never stored")
    func pendingLoginOnce() async throws {
        let pools = try (0..<4).map { _ in try TestRedis.open(connections: 3) }
        defer { for pool in pools { pool.close() } }
        let namespace = TestRedis.uniqueNamespace("pending")
        let encryption = try TokenEncryption(current: TestRedis.key("k1", 7))
        let stores = try pools.map { try RedisPendingLoginStore(database: $0, namespace: namespace, encryption: encryption) }
        try await stores[0].saveBytes(Array("verifier-secret".utf8), key: "state-secret", expiresIn: 600, scope: nil)
        await expectError(.pendingLoginExists) { try await stores[1].saveBytes([1], key: "state-secret", expiresIn: 600, scope: nil) }
        let keys = try await TestRedis.run(pools[0], "KEYS", "\(namespace):*").array("keys").compactMap { try $0.text("key") }
        #expect(keys.count == 1 && !keys.joined().contains("state-secret"))
        let raw = try await TestRedis.run(pools[0], "HGET", keys[0], "p").bytes("payload") ?? []
        #expect(!String(decoding: raw, as: UTF8.self).contains("verifier-secret"))
        let outcomes = await withTaskGroup(of: String.self) { group in
            for i in 0..<24 {
                group.addTask {
                    do { return String(decoding: try await stores[i % 4].consumeBytes(key: "state-secret"), as: UTF8.self) } catch let error as OIDCError {
                        return error.code.rawValue
                    } catch { return "\(error)" }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "verifier-secret" }.count == 1)
        #expect(outcomes.filter { $0 == "pending_login_not_found" }.count == 23)
    }

    @Test("pending logins: expiry told apart, the per-scope share is exact and freed by a consume, other scopes unaffected")
    func pendingLoginBounds() async throws {
        let database = try TestRedis.open()
        defer { database.close() }
        let namespace = TestRedis.uniqueNamespace("pending")
        let store = try RedisPendingLoginStore(database: database, namespace: namespace, capacityPerScope: 2)
        try await store.saveBytes([1], key: "a", expiresIn: 600, scope: "10.0.0.1")
        try await store.saveBytes([2], key: "b", expiresIn: 600, scope: "10.0.0.1")
        await expectError(.pendingLoginStoreFull) { try await store.saveBytes([3], key: "c", expiresIn: 600, scope: "10.0.0.1") }
        try await store.saveBytes([4], key: "d", expiresIn: 600, scope: "10.0.0.2")
        try await store.saveBytes([5], key: "e", expiresIn: 600, scope: nil)
        #expect(try await store.consumeBytes(key: "a") == [1])
        try await store.saveBytes([3], key: "c", expiresIn: 600, scope: "10.0.0.1")  // room again
        try await store.saveBytes([6], key: "short", expiresIn: 0.2, scope: nil)
        // The event: the server's clock passes the login's expiry (read without consuming it).
        let entry = "\(namespace):\(RedisNamespace.hex(DigestAlgorithm.sha256.hash(Array("short".utf8))))"
        let expires = try await TestRedis.run(database, "HGET", entry, "e").integer("expiry")
        try await eventually("the short login expired") {
            let time = try await TestRedis.run(database, "TIME").array("time")
            return try time[0].integer("seconds") * 1000 + (try time[1].integer("microseconds")) / 1000 > expires
        }
        await expectError(.pendingLoginExpired) { _ = try await store.consumeBytes(key: "short") }
        await expectError(.pendingLoginNotFound) { _ = try await store.consumeBytes(key: "short") }
        // Through the protocol's Codable layer.
        try await store.save(["v": 1], key: "coded", expiresIn: 60)
        #expect(try await store.consume(key: "coded", as: [String: Int].self) == ["v": 1])
    }

    @Test("session index: save, load, replace, delete by handle, by sid, by subject (sessions without sid), expiry by the server; sealed")
    func sessionIndex() async throws {
        let a = try TestRedis.open(), b = try TestRedis.open()
        defer { a.close(); b.close() }
        let namespace = TestRedis.uniqueNamespace("sessions")
        let encryption = try TokenEncryption(current: TestRedis.key("k1", 3))
        let index = try RedisSessionIndex(database: a, namespace: namespace, encryption: encryption)
        let other = try RedisSessionIndex(database: b, namespace: namespace, encryption: encryption)
        let iss = "https://op.example"
        try await index.save(Array("r1".utf8), handle: "cookie-1", issuer: iss, subject: "alice", sessionID: "sid-1", expiresIn: 600)
        try await index.save(Array("r2".utf8), handle: "cookie-2", issuer: iss, subject: "alice", sessionID: nil, expiresIn: 600)
        try await index.save(Array("r3".utf8), handle: "cookie-3", issuer: iss, subject: "alice", sessionID: "sid-3", expiresIn: 600)
        try await index.save(Array("r4".utf8), handle: "cookie-4", issuer: iss, subject: "bob", sessionID: "sid-4", expiresIn: 600)
        try await index.save(Array("r5".utf8), handle: "cookie-5", issuer: "https://other.example", subject: "alice", sessionID: "sid-1", expiresIn: 600)
        #expect(try await other.load(handle: "cookie-1") == Array("r1".utf8))
        #expect(try await other.load(handle: "nope") == nil)
        let raw = try await TestRedis.run(a, "KEYS", "\(namespace):*").array("keys").compactMap { try $0.text("key") }
        #expect(!raw.joined().contains("cookie-"))
        // sid-1 + alice: the session with that sid, and alice's session without a sid; not sid-3's, not the other issuer's.
        let ended = try await other.deleteSessions(issuer: iss, subject: "alice", sessionID: "sid-1").map { String(decoding: $0, as: UTF8.self) }
        #expect(Set(ended) == ["r1", "r2"])
        #expect(try await index.load(handle: "cookie-3") == Array("r3".utf8))
        #expect(try await index.load(handle: "cookie-5") == Array("r5".utf8))
        // Replacing a session moves it in the index.
        try await index.save(Array("r3b".utf8), handle: "cookie-3", issuer: iss, subject: "carol", sessionID: nil, expiresIn: 600)
        #expect(try await other.deleteSessions(issuer: iss, subject: "alice", sessionID: nil).isEmpty)
        #expect(try await other.deleteSessions(issuer: iss, subject: nil, sessionID: "sid-4").map { String(decoding: $0, as: UTF8.self) } == ["r4"])
        #expect(try await other.delete(handle: "cookie-3") == Array("r3b".utf8))
        #expect(try await other.delete(handle: "cookie-3") == nil)
        #expect(try await other.deleteSessions(issuer: iss, subject: nil, sessionID: nil).isEmpty)
        try await index.save(Array("r6".utf8), handle: "cookie-6", issuer: iss, subject: "dave", sessionID: nil, expiresIn: 0.2)
        try await eventually("the server expired the session") { try await index.load(handle: "cookie-6") == nil }
        #expect(try await index.deleteSessions(issuer: iss, subject: "dave", sessionID: nil).isEmpty)
    }

    @Test("replay cache: first use, a replay at another replica, another scope; expired entries reusable; extreme dates; no identifier text on the server")
    func replayAcrossReplicas() async throws {
        let a = try TestRedis.open(), b = try TestRedis.open()
        defer { a.close(); b.close() }
        let namespace = TestRedis.uniqueNamespace("replay")
        let first = try RedisReplayCache(database: a, namespace: namespace), second = try RedisReplayCache(database: b, namespace: namespace)
        #expect(try await first.recordFirstUse(of: "jti-secret-1", scope: "https://as.example", until: Self.at(660), now: Self.t0) == .firstUse)
        #expect(try await second.recordFirstUse(of: "jti-secret-1", scope: "https://as.example", until: Self.at(960), now: Self.at(300)) == .replayed)
        #expect(try await second.recordFirstUse(of: "jti-secret-1", scope: "https://other.example", until: Self.at(660), now: Self.t0) == .firstUse)
        #expect(try await first.recordFirstUse(of: "jti-secret-1", scope: "https://as.example", until: Self.at(960), now: Self.at(660)) == .firstUse)
        #expect(try await first.recordFirstUse(of: "far", scope: "s", until: Date(timeIntervalSince1970: 1e300), now: Self.t0) == .firstUse)
        #expect(try await first.recordFirstUse(of: "far", scope: "s", until: Self.at(1), now: Date(timeIntervalSince1970: 1e15)) == .replayed)
        #expect(try await first.recordFirstUse(of: "nan", scope: "s", until: Date(timeIntervalSince1970: .nan), now: Self.t0) == .firstUse)
        #expect(try await first.recordFirstUse(of: "nan", scope: "s", until: Self.at(1), now: Self.at(1e9)) == .replayed)
        let keys = try await TestRedis.run(a, "KEYS", "\(namespace):*").array("keys").compactMap { try $0.text("key") }
        #expect(keys.count == 3)
        for key in keys {
            let members = try await TestRedis.run(a, "ZRANGE", key, "0", "-1").array("members").compactMap { try $0.text("member") }
            #expect(!members.joined().contains("jti-secret"))
        }
    }

    @Test("replay cache release: the identifier is a first use again at every replica; another scope's entry stays")
    func replayRelease() async throws {
        let a = try TestRedis.open(), b = try TestRedis.open()
        defer { a.close(); b.close() }
        let namespace = TestRedis.uniqueNamespace("replay")
        let first = try RedisReplayCache(database: a, namespace: namespace), second = try RedisReplayCache(database: b, namespace: namespace)
        #expect(try await first.recordFirstUse(of: "j", scope: "s", until: Self.at(600), now: Self.t0) == .firstUse)
        #expect(try await first.recordFirstUse(of: "j", scope: "other", until: Self.at(600), now: Self.t0) == .firstUse)
        try await first.release("j", scope: "s")
        try await first.release("never-recorded", scope: "s")
        #expect(try await second.recordFirstUse(of: "j", scope: "s", until: Self.at(600), now: Self.at(1)) == .firstUse)
        #expect(try await second.recordFirstUse(of: "j", scope: "s", until: Self.at(600), now: Self.at(2)) == .replayed)
        #expect(try await second.recordFirstUse(of: "j", scope: "other", until: Self.at(600), now: Self.at(2)) == .replayed)
    }

    @Test("replay cache bounded per scope (exact), and 24 concurrent first uses on 4 replicas: exactly one first use")
    func replayBoundsAndRace() async throws {
        let pools = try (0..<4).map { _ in try TestRedis.open(connections: 3) }
        defer { for pool in pools { pool.close() } }
        let namespace = TestRedis.uniqueNamespace("replay")
        let caches = try pools.map { try RedisReplayCache(database: $0, namespace: namespace, scopeCapacity: 3) }
        for i in 0..<3 {
            #expect(try await caches[i].recordFirstUse(of: "k-\(i)", scope: "attacker", until: Self.at(100 + Double(i)), now: Self.t0) == .firstUse)
        }
        #expect(try await caches[3].recordFirstUse(of: "k-3", scope: "attacker", until: Self.at(100), now: Self.t0) == .full)
        #expect(try await caches[3].recordFirstUse(of: "k-1", scope: "attacker", until: Self.at(101), now: Self.at(1)) == .replayed)
        #expect(try await caches[3].recordFirstUse(of: "fresh", scope: "honest", until: Self.at(100), now: Self.t0) == .firstUse)
        #expect(try await caches[0].recordFirstUse(of: "k-3", scope: "attacker", until: Self.at(400), now: Self.at(100)) == .firstUse)
        let firsts = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<24 {
                group.addTask { try await caches[i % 4].recordFirstUse(of: "proof", scope: "thumbprint", until: Self.at(300), now: Self.t0) == .firstUse }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(firsts == 1)
    }

    @Test("the same DPoP proof presented to two replicas sharing Redis: the first accepts it, the second refuses it as a replay")
    func dpopProofAcrossReplicas() async throws {
        let a = try TestRedis.open(), b = try TestRedis.open()
        defer { a.close(); b.close() }
        let namespace = TestRedis.uniqueNamespace("dpop")
        let now = Date()
        let uri = try #require(URL(string: "https://rs.example/api/items"))
        func replica(_ database: RedisDatabase) throws -> DPoPProofValidator {
            DPoPProofValidator(maximumAge: 300, leeway: 60, replays: .cache(try RedisReplayCache(database: database, namespace: namespace)), clock: { now })
        }
        let key = try DPoPKey.generate()
        let proof = try key.proof(method: "GET", url: uri, accessToken: "at-1", nonce: nil, now: now)
        let verified = try await replica(a).validate(
            proof, for: .request(method: "GET", uri: uri), nonce: .notRequired, presenting: .accessToken("at-1", boundTo: .thumbprint(key.thumbprint)))
        #expect(verified.thumbprint == key.thumbprint)
        await expectError(.dpopProofReplayed) {
            _ = try await replica(b).validate(
                proof, for: .request(method: "GET", uri: uri), nonce: .notRequired, presenting: .accessToken("at-1", boundTo: .thumbprint(key.thumbprint)))
        }
        // A fresh proof from the same key still passes at the second replica.
        let fresh = try key.proof(method: "GET", url: uri, accessToken: "at-1", nonce: nil, now: now)
        _ = try await replica(b).validate(
            fresh, for: .request(method: "GET", uri: uri), nonce: .notRequired, presenting: .accessToken("at-1", boundTo: .thumbprint(key.thumbprint)))
    }
}
