import CLibCrypto
import Foundation
import Testing

@testable import JOSE

/// The sharded pool of prepared libcrypto contexts behind every key.
@Suite("Context pool")
struct ContextPoolTests {
    /// Makes digest contexts and counts them.
    final class Maker: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var made = 0
        func make() throws -> PooledContext {
            guard let context = EVP_MD_CTX_new() else { throw JOSEError(.cryptoFailure, "EVP_MD_CTX_new") }
            lock.lock(); made += 1; lock.unlock()
            return PooledContext(kind: .md, pointer: context)
        }
    }

    struct Planted: Error {}

    @Test("one thread: a context is made once, then reused")
    func reuse() throws {
        let pool = ContextPool(), maker = Maker()
        var seen: Set<OpaquePointer> = []
        for _ in 0..<100 {
            _ = try pool.withContext(slot: 3, make: maker.make) { seen.insert($0.pointer) }
        }
        #expect(maker.made == 1)
        #expect(seen.count == 1)
        #expect(pool.idleCount == 1)
    }

    @Test("contexts are kept per slot: a slot never receives another slot's context")
    func slotsApart() throws {
        let pool = ContextPool(), maker = Maker()
        var bySlot: [Int: Set<OpaquePointer>] = [:]
        for round in 0..<30 {
            let slot = round % 3
            _ = try pool.withContext(slot: slot, make: maker.make) { bySlot[slot, default: []].insert($0.pointer) }
        }
        #expect(maker.made == 3)
        #expect(bySlot.values.map(\.count) == [1, 1, 1])
        #expect(bySlot[0]!.isDisjoint(with: bySlot[1]!) && bySlot[1]!.isDisjoint(with: bySlot[2]!))
    }

    @Test("a context whose use threw is dropped, and the next use makes a new one")
    func failedContextDropped() throws {
        let pool = ContextPool(), maker = Maker()
        try pool.withContext(slot: 0, make: maker.make) { _ in }
        #expect(pool.idleCount == 1)
        #expect(throws: Planted.self) { try pool.withContext(slot: 0, make: maker.make) { _ in throw Planted() } }
        #expect(pool.idleCount == 0)
        try pool.withContext(slot: 0, make: maker.make) { _ in }
        #expect(maker.made == 2)
    }

    @Test("8 threads at once: no context is ever in two hands, and the pool stays bounded")
    func concurrentExclusive() throws {
        let pool = ContextPool(), maker = Maker()
        let inUse = Locked<Set<OpaquePointer>>([])
        let clashes = Locked(0), failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<2_000 {
                do {
                    try pool.withContext(slot: round % 2, make: maker.make) { context in
                        let fresh = inUse.withLock { $0.insert(context.pointer).inserted }
                        if !fresh { clashes.withLock { $0 += 1 } }
                        // Hold it a moment, so that other threads find shards busy.
                        if round % 7 == thread { usleep(1) }
                        inUse.withLock { _ = $0.remove(context.pointer) }
                    }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(clashes.withLock { $0 } == 0)
        #expect(failures.withLock { $0 } == 0)
        #expect(pool.idleCount <= 64)
        #expect(pool.idleCount >= 1)
        #expect(maker.made >= pool.idleCount)
        // Eight threads never need more than eight contexts at once, plus the few
        // made while a shard was briefly locked by its neighbour: no churn.
        #expect(maker.made <= 64, "\(maker.made) contexts made for 16,000 uses")
    }

    @Test("a copied JWK shares its key but not its metadata")
    func jwkCopyOnWrite() throws {
        let original = try TestKeys.jwk("rsa2048.pub.jwk")
        var copy = original
        copy.keyID = "changed"
        copy.use = "enc"
        #expect(original.keyID != "changed")
        #expect(original.use != "enc")
        #expect(copy.keyID == "changed")
        #expect(copy.thumbprint() == original.thumbprint())
        let signer = try TestKeys.pem("rsa2048.pem")
        let token = try JWT.sign(["sub": "x"], key: signer, algorithm: .rs256)
        #expect(try JWT.verifyIgnoringIssuerAndAudience(token, key: original).claims.subject == "x")
        #expect(throws: JOSEError.self) { try JWT.verifyIgnoringIssuerAndAudience(token, key: copy) }
    }

    @Test("the packed `alg` lookup agrees with init(rawValue:) on every name and near miss")
    func algorithmNames() {
        var names = JWSAlgorithm.allCases.map(\.rawValue)
        names += [
            "", "none", "NONE", "hs256", "HS25", "HS2566", "HS256 ", " HS256", "HS256\0", "\0HS256", "\0\0HS256",
            "EdDSA\0\0", "Ed2551", "Ed255199", "ES256K", "RS1", "PS256\u{301}", "ＨS256", "EDDSA",
        ]
        for name in names {
            #expect(JWSAlgorithm.named(name) == JWSAlgorithm(rawValue: name), "\(name.debugDescription)")
        }
    }
}
