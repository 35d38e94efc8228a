import Foundation
import OIDC
import OIDCSession
import Testing

@testable import OIDCRedis

@Suite("RedisTokenStore against a real server (REDIS_URL)", .enabled(if: TestRedis.enabled))
struct RedisTokenStoreTests {
    static let start = TokenResponse(
        accessToken: "AT-start-secret", expiresAt: Date(timeIntervalSince1970: 1_900_000_000),
        refreshToken: "RT-start-secret", idToken: "ID-start")

    static func numbered(_ n: Int) -> TokenResponse {
        TokenResponse(accessToken: "AT-\(n)", expiresAt: Date(timeIntervalSince1970: 1_900_000_000), refreshToken: "RT-\(n)")
    }

    @Test("save, load, overwrite and clear; keys are separate; description names no key")
    func basics() async throws {
        let database = try TestRedis.open()
        defer { database.close() }
        let namespace = TestRedis.uniqueNamespace("tokens")
        let alice = try RedisTokenStore(database: database, key: "alice", namespace: namespace)
        let bob = try RedisTokenStore(database: database, key: "bob", namespace: namespace)
        #expect(try await alice.load() == nil)
        try await alice.save(Self.start)
        #expect(try await alice.load()?.refreshToken == "RT-start-secret")
        #expect(try await bob.load() == nil)
        try await alice.save(Self.numbered(2))
        #expect(try await alice.load()?.accessToken == "AT-2")
        try await alice.clear()
        #expect(try await alice.load() == nil)
        #expect("\(alice)" == "RedisTokenStore(namespace: \(namespace))")
        await expectError(.invalidRedisValue) { _ = try RedisTokenStore(database: database, key: "") }
        await expectError(.invalidRedisNamespace) { _ = try RedisTokenStore(database: database, key: "k", namespace: "bad name") }
    }

    @Test("sealed at rest exactly as PostgreSQL's rows: no token text on the server, key id kept, rotation reads old keys, a moved value does not open")
    func sealing() async throws {
        let database = try TestRedis.open()
        defer { database.close() }
        let namespace = TestRedis.uniqueNamespace("sealed")
        let old = try TokenEncryption(current: TestRedis.key("k1", 1))
        let rotated = try TokenEncryption(current: TestRedis.key("k2", 2), previous: [TestRedis.key("k1", 1)])
        let store = try RedisTokenStore(database: database, key: "alice", namespace: namespace, encryption: old)
        try await store.save(Self.start)
        let raw = try await TestRedis.run(database, "HGETALL", "\(namespace):alice").array("hash")
        let rawText = try raw.compactMap { try $0.bytes("field") }.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "|")
        #expect(!rawText.contains("RT-start-secret") && !rawText.contains("AT-start-secret"))
        #expect(rawText.contains("k1"))
        // Rotation: read with the previous key, written again with the current one.
        let next = try RedisTokenStore(database: database, key: "alice", namespace: namespace, encryption: rotated)
        #expect(try await next.load()?.refreshToken == "RT-start-secret")
        try await next.save(Self.numbered(3))
        #expect(try await TestRedis.run(database, "HGET", "\(namespace):alice", "k").text("k") == "k2")
        await expectError(.decryptionFailed) { _ = try await store.load() }  // k2 is unknown to the old configuration
        let plain = try RedisTokenStore(database: database, key: "alice", namespace: namespace)
        await expectError(.decryptionFailed) { _ = try await plain.load() }
        // A sealed value copied under another user's key does not decrypt there (the key is associated data).
        _ = try await database.command([Array("COPY".utf8), Array("\(namespace):alice".utf8), Array("\(namespace):mallory".utf8)])
        let mallory = try RedisTokenStore(database: database, key: "mallory", namespace: namespace, encryption: rotated)
        await expectError(.decryptionFailed) { _ = try await mallory.load() }
        // A value not in the form written here is a typed error.
        _ = try await TestRedis.run(database, "HSET", "\(namespace):bob", "g", "1", "p", "{not json")
        let bob = try RedisTokenStore(database: database, key: "bob", namespace: namespace)
        await expectError(.invalidRedisValue) { _ = try await bob.load() }
        _ = try await TestRedis.run(database, "SET", "\(namespace):carol", "a string")
        let carol = try RedisTokenStore(database: database, key: "carol", namespace: namespace)
        await expectError(.redisError) { _ = try await carol.load() }  // WRONGTYPE
    }

    @Test("16 concurrent refreshes on 4 replicas (pools): one provider call, everyone gets its tokens, waiters woken by PUBLISH")
    func singleFlightAcrossReplicas() async throws {
        let pools = try (0..<4).map { _ in try TestRedis.open(connections: 2) }
        defer { for pool in pools { pool.close() } }
        let namespace = TestRedis.uniqueNamespace("lease")
        var stores = try pools.map { try RedisTokenStore(database: $0, key: "u", namespace: namespace) }
        for index in stores.indices { stores[index].recheckSeconds = 3600 }  // only a message (or a lease's expiry) wakes a waiter
        try await stores[0].save(Self.start)
        let steps = StepCounter()
        let results = try await withThrowingTaskGroup(of: CoordinatedRefreshResult.self) { group in
            for i in 0..<16 {
                let store = stores[i % 4]
                group.addTask {
                    try await store.coordinatedRefresh(replacing: Self.start) { stale in
                        #expect(stale.refreshToken == "RT-start-secret")
                        let n = steps.next()
                        try await Task.sleep(nanoseconds: 300_000_000)
                        return .refreshed(Self.numbered(n))
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(steps.value == 1)
        var refreshed = 0, already = 0
        for result in results {
            switch result {
            case .refreshed(let tokens): refreshed += 1; #expect(tokens.accessToken == "AT-1")
            case .alreadyRefreshed(let tokens): already += 1; #expect(tokens.accessToken == "AT-1")
            default: Issue.record("unexpected \(result)")
            }
        }
        #expect(refreshed == 1 && already == 15)
        #expect(try await stores[3].load()?.accessToken == "AT-1")
        #expect(pools.map(\.subscriber.wakesByNotification).reduce(0, +) >= 1)
    }

    @Test("a holder that dies (its lease not renewed, never released) is taken over once the lease expires: one more provider call, by a survivor")
    func deadHolderTakenOver() async throws {
        let dying = try TestRedis.open(connections: 1), survivor = try TestRedis.open(connections: 1)
        defer { survivor.close() }
        let namespace = TestRedis.uniqueNamespace("dead")
        let holder = try RedisTokenStore(database: dying, key: "u", namespace: namespace, lease: 1)
        let waiter = try RedisTokenStore(database: survivor, key: "u", namespace: namespace, lease: 1)
        try await holder.save(Self.start)
        // The holder takes the lease as a replica would, then its process "dies": no renewal, no release.
        let row = try #require(try await holder.readRow(onLeaseConnection: false))
        #expect(try await holder.takeLease(from: row.generation, owner: "dead-replica") != nil)
        dying.close()
        let steps = StepCounter()
        let result = try await waiter.coordinatedRefresh(replacing: Self.start) { _ in .refreshed(Self.numbered(steps.next())) }
        guard case .refreshed(let tokens) = result else { Issue.record("unexpected \(result)"); return }
        #expect(tokens.accessToken == "AT-1" && steps.value == 1)
    }

    @Test("every connection killed (CLIENT KILL TYPE normal) while the holder is inside its refresh step: one refresh, stored, the waiter gets it")
    func connectionsKilledMidRefresh() async throws {
        let name = "kill-\(UInt32.random(in: 0...UInt32.max))"
        let holderPool = try TestRedis.open(connections: 1, name: name), waiterPool = try TestRedis.open(connections: 1, name: name)
        let admin = try TestRedis.open(connections: 1)
        defer { holderPool.close(); waiterPool.close(); admin.close() }
        let namespace = TestRedis.uniqueNamespace("kill")
        let holder = try RedisTokenStore(database: holderPool, key: "u", namespace: namespace, lease: 6)
        let waiter = try RedisTokenStore(database: waiterPool, key: "u", namespace: namespace, lease: 6)
        try await holder.save(Self.start)
        let inside = Signal(), killed = Signal()
        let steps = StepCounter()
        async let held = holder.coordinatedRefresh(replacing: Self.start) { _ in
            let n = steps.next()
            inside.fire()
            await killed.wait()
            return .refreshed(Self.numbered(n))
        }
        await inside.wait()
        async let waited = waiter.coordinatedRefresh(replacing: Self.start) { _ in
            .refreshed(Self.numbered(100 + steps.next()))
        }
        try await eventually("the waiter subscribed") { waiterPool.subscriber.isListening }
        // Every connection of both replicas: request pools, lease connections, the waiter's subscriber.
        #expect(try await TestRedis.killClients(named: name, using: admin) >= 4)
        killed.fire()
        let first = try await held, second = try await waited
        #expect(steps.value == 1)
        guard case .refreshed(let stored) = first else { Issue.record("holder: \(first)"); return }
        #expect(stored.accessToken == "AT-1")
        guard case .alreadyRefreshed(let seen) = second else { Issue.record("waiter: \(second)"); return }
        #expect(seen.accessToken == "AT-1")
        #expect(try await waiter.load()?.accessToken == "AT-1")
    }

    @Test("a refusal logs out once for everyone (fenced delete); a thrown error keeps the tokens and ends the lease")
    func refusalAndFailure() async throws {
        let database = try TestRedis.open()
        defer { database.close() }
        let namespace = TestRedis.uniqueNamespace("refuse")
        let store = try RedisTokenStore(database: database, key: "u", namespace: namespace)
        try await store.save(Self.start)
        struct Boom: Error {}
        do {
            _ = try await store.coordinatedRefresh(replacing: Self.start) { _ in throw Boom() }
            Issue.record("no error")
        } catch is Boom {}
        let row = try #require(try await store.readRow(onLeaseConnection: false))
        #expect(!row.leased && row.tokens.refreshToken == "RT-start-secret")
        let result = try await store.coordinatedRefresh(replacing: Self.start) { _ in
            .refused(OIDCError(.loggedOut, "invalid_grant"))
        }
        guard case .loggedOut = result else { Issue.record("unexpected \(result)"); return }
        #expect(try await store.load() == nil)
    }

    @Test("a lease taken over during the provider call: the late result is not stored over the newer tokens (refresh_lease_lost)")
    func fencing() async throws {
        let database = try TestRedis.open()
        defer { database.close() }
        let namespace = TestRedis.uniqueNamespace("fence")
        let store = try RedisTokenStore(database: database, key: "u", namespace: namespace)
        try await store.save(Self.start)
        let result = try await store.coordinatedRefresh(replacing: Self.start) { _ in
            try await store.save(Self.numbered(9))  // a new login meanwhile: the generation moves on
            return .refreshed(Self.numbered(1))
        }
        guard case .refreshedNotStored(let tokens, let error) = result else { Issue.record("unexpected \(result)"); return }
        #expect(tokens.accessToken == "AT-1" && error.code == .refreshLeaseLost)
        #expect(try await store.load()?.accessToken == "AT-9")
    }
}
