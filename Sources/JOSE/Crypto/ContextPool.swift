import CLibCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A libcrypto context that may be pooled: a `EVP_PKEY_CTX` (with the
/// `EVP_MD_CTX` that hashes for it), an `EVP_MD_CTX` or an `EVP_MAC_CTX`.
struct PooledContext: @unchecked Sendable {
    enum Kind { case pkey, md, mac }
    let kind: Kind
    let pointer: OpaquePointer
    /// For `.pkey`: a digest context reused for every message it verifies.
    var digest: OpaquePointer? = nil

    func free() {
        switch kind {
        case .pkey:
            EVP_PKEY_CTX_free(pointer)
            EVP_MD_CTX_free(digest)
        case .md: EVP_MD_CTX_free(pointer)
        case .mac: EVP_MAC_CTX_free(pointer)
        }
    }
}

/// The idle contexts of one key, kept for reuse, each tagged with the slot
/// (algorithm or digest) it was prepared for.
///
/// The pool is split into shards, each on cache lines of its own and guarded by
/// a mutex that is only ever *tried*: a thread starts at the shard its identity
/// hashes to and moves on when that shard is busy. No thread ever waits for
/// another (a contended lock would put both to sleep in the kernel), and threads
/// verifying with one key at the same time mostly touch different memory.
final class ContextPool: @unchecked Sendable {
    private struct Entry {
        var slot: Int
        var context: PooledContext
    }

    private static let shardBits = 3
    private static let shardCount = 1 << shardBits
    /// Contexts one shard keeps; beyond that a returned context is freed
    /// (8 shards of 8: up to 64 idle contexts per key).
    private static let shardCapacity = 8
    private static let countOffset = (MemoryLayout<pthread_mutex_t>.size + 7) & ~7
    private static let entriesOffset = countOffset + MemoryLayout<Int>.stride
    /// Bytes per shard: whole 64-byte lines, so no two shards share one.
    private static let shardStride = (entriesOffset + shardCapacity * MemoryLayout<Entry>.stride + 63) & ~63

    private let memory: UnsafeMutableRawPointer

    init() {
        memory = .allocate(byteCount: Self.shardCount * Self.shardStride, alignment: 64)
        for shard in 0..<Self.shardCount {
            let base = memory + shard * Self.shardStride
            base.bindMemory(to: pthread_mutex_t.self, capacity: 1)
            (base + Self.countOffset).bindMemory(to: Int.self, capacity: 1)
            (base + Self.entriesOffset).bindMemory(to: Entry.self, capacity: Self.shardCapacity)
            let mutex = self.mutex(shard)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
            count(shard).initialize(to: 0)
        }
    }

    deinit {
        for shard in 0..<Self.shardCount {
            let entries = self.entries(shard)
            for index in 0..<count(shard).pointee { entries[index].context.free() }
            pthread_mutex_destroy(mutex(shard))
        }
        memory.deallocate()
    }

    /// Runs `body` with a context for `slot`, reused from the pool or made by
    /// `make`. The context goes back to the pool afterwards, unless `body`
    /// threw (a failed libcrypto operation may leave it in any state).
    func withContext<R>(slot: Int, make: () throws -> PooledContext, _ body: (PooledContext) throws -> R) throws -> R {
        let home = Self.homeShard()
        let context = try take(slot: slot, from: home) ?? make()
        let result: R
        do {
            result = try body(context)
        } catch {
            context.free()
            throw error
        }
        put(context, slot: slot, near: home)
        return result
    }

    /// An idle context for `slot`, from the first shard (starting at `home`)
    /// that is free to lock and has one; `nil` when none has (a new context is
    /// then made: only while the pool warms up, or beyond 64 concurrent users).
    private func take(slot: Int, from home: Int) -> PooledContext? {
        for probe in 0..<Self.shardCount {
            let shard = (home + probe) & (Self.shardCount - 1)
            let mutex = self.mutex(shard)
            guard pthread_mutex_trylock(mutex) == 0 else { continue }
            defer { pthread_mutex_unlock(mutex) }
            let count = self.count(shard), entries = self.entries(shard)
            for index in 0..<count.pointee where entries[index].slot == slot {
                let context = entries[index].context
                count.pointee -= 1
                entries[index] = entries[count.pointee]
                return context
            }
        }
        return nil
    }

    /// Keeps `context` in the first shard from `home` that is free to lock and
    /// has room; frees it when there is none.
    private func put(_ context: PooledContext, slot: Int, near home: Int) {
        for probe in 0..<Self.shardCount {
            let shard = (home + probe) & (Self.shardCount - 1)
            let mutex = self.mutex(shard)
            guard pthread_mutex_trylock(mutex) == 0 else { continue }
            defer { pthread_mutex_unlock(mutex) }
            let count = self.count(shard)
            guard count.pointee < Self.shardCapacity else { continue }
            entries(shard)[count.pointee] = Entry(slot: slot, context: context)
            count.pointee += 1
            return
        }
        context.free()
    }

    /// The number of idle contexts (for tests).
    var idleCount: Int {
        var total = 0
        for shard in 0..<Self.shardCount {
            pthread_mutex_lock(mutex(shard))
            total += count(shard).pointee
            pthread_mutex_unlock(mutex(shard))
        }
        return total
    }

    /// The calling thread's first shard: its thread identity, hashed.
    private static func homeShard() -> Int {
        #if canImport(Darwin)
        let identity = UInt(bitPattern: pthread_self())
        #else
        let identity = UInt(pthread_self())
        #endif
        // Fibonacci hashing: the top bits of the product mix every bit of the identity.
        return Int(truncatingIfNeeded: (UInt64(identity) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - shardBits))
    }

    private func mutex(_ shard: Int) -> UnsafeMutablePointer<pthread_mutex_t> {
        (memory + shard * Self.shardStride).assumingMemoryBound(to: pthread_mutex_t.self)
    }
    private func count(_ shard: Int) -> UnsafeMutablePointer<Int> {
        (memory + shard * Self.shardStride + Self.countOffset).assumingMemoryBound(to: Int.self)
    }
    private func entries(_ shard: Int) -> UnsafeMutablePointer<Entry> {
        (memory + shard * Self.shardStride + Self.entriesOffset).assumingMemoryBound(to: Entry.self)
    }
}
