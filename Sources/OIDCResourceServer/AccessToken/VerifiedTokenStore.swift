import JOSE
import OIDCCore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Access tokens an ``AccessTokenValidator`` verified, kept so that the same token presented again skips the
/// signature check — under the six rules of a safe verified-token cache:
///
/// 1. The key is the SHA-256 of the exact token bytes with the digest of the validator's policy (issuer, audience,
///    algorithms, `typ` rule, profile: ``AccessTokenValidator``'s `policyDigest`): a token verified under one policy
///    is never a hit under another. No token text is kept.
/// 2. Only tokens that passed every rule of the token itself are inserted; failures never are.
/// 3. An entry lives until the token's `exp` and at most ``maximumAge``; every hit re-checks `exp` and `nbf` with
///    the caller's leeway against the caller's clock (JOSE's time rule), and the caller checks the scopes.
/// 4. An entry records the key that verified it: when the issuer's ``/OIDCCore/JWKSetCache`` fetches a new set,
///    entries whose key left it are dropped, and a verification that raced the change is not inserted.
/// 5. Only the token is cached: its binding (DPoP proof, `cnf.jkt`, nonce, `x5t#S256`) is checked by the caller on
///    every request, hit or miss.
/// 6. At most ``capacity`` entries, least recently used evicted first (per shard); tokens over
///    ``maximumTokenBytes`` are not cached; one verification in flight per key on a miss; purged by predicate.
///
/// Each thread keeps its last few hits in a front of its own (``VerifiedTokenFront``), so that threads serving the same
/// popular token do not write to the same memory; a purge or a new key set invalidates every front at once.
package final class VerifiedTokenStore: Sendable {
    /// Tokens longer than this (4 KiB) are verified every time.
    package static let maximumTokenBytes = 4096

    /// A SHA-256 digest as four words.
    package struct Digest: Hashable, Sendable {
        let words: (UInt64, UInt64, UInt64, UInt64)

        /// The SHA-256 of `bytes`.
        init<Bytes: ContiguousBytes>(sha256 bytes: Bytes) {
            let digest = DigestAlgorithm.sha256.hash(bytes)
            var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &words) { target in
                digest.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(32))) }
            }
            self.words = words
        }

        /// A digest from its four words (tests).
        init(words: (UInt64, UInt64, UInt64, UInt64)) { self.words = words }

        package static func == (lhs: Digest, rhs: Digest) -> Bool {
            lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
        }

        package func hash(into hasher: inout Hasher) { hasher.combine(words.0) }
    }

    /// Where a token is kept: its digest under a policy's.
    package struct Key: Hashable, Sendable {
        let policy: Digest
        let token: Digest

        /// The key of `token` (read in place) under the policy whose digest is `policy`.
        package init(token: Substring, policy: Digest) {
            self.policy = policy
            self.token =
                token.utf8.withContiguousStorageIfAvailable { Digest(sha256: UnsafeRawBufferPointer($0)) }
                ?? Digest(sha256: Array(token.utf8))
        }

        /// A key from its two digests (tests).
        init(policy: Digest, token: Digest) {
            self.policy = policy
            self.token = token
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(token.words.0)
            hasher.combine(policy.words.0)
        }
    }

    /// One kept verification.
    struct Entry {
        let token: AccessToken
        let expiresAt: Date
        let notBefore: Date?
        /// `min(exp, insertion + maximumAge)`.
        let until: Date
        /// The key cache whose set held the verifying key; `nil` for a fixed set.
        let keySource: ObjectIdentifier?
    }

    /// A verification in flight: the callers that missed the same key meanwhile wait for it. Guarded by its shard's lock.
    package final class Flight: @unchecked Sendable {
        fileprivate var done = false
        fileprivate var result: Entry?
        fileprivate var waiters: [CheckedContinuation<Entry?, Never>] = []
        fileprivate let shard: Int
        fileprivate let generation: UInt64
        fileprivate init(shard: Int, generation: UInt64) {
            self.shard = shard
            self.generation = generation
        }
    }

    /// What a lookup found.
    package enum Lookup {
        /// A current entry: its token passed every rule of the token itself.
        case hit(AccessToken)
        /// Another caller is verifying this token: ``wait(for:)``, then verify yourself if it answers `nil`.
        case wait(Flight)
        /// Verify the token, then ``finish(_:key:with:keySource:now:)`` (also on failure, with `nil`).
        case lead(Flight)
    }

    /// The most entries kept.
    package let capacity: Int
    /// The longest an entry is kept, in seconds.
    package let maximumAge: TimeInterval
    private let shards: [Locked<VerifiedTokenShard>]
    /// This store among all stores: the threads' fronts name it by this number, never reused.
    private let serial: UInt64
    /// Moves after every purge and key-set change, once the entries are gone: a front's slot filled at an older epoch
    /// is not served.
    private let epoch = Atomic<UInt64>(0)
    /// Hits served from the threads' fronts, one counter per thread number (modulo their count), each in memory of its own.
    private let frontHits: [FrontHitCounter]

    private static let serials = Locked<UInt64>(0)

    /// Whether hits are kept in the threads' fronts (``VerifiedTokenFront``); off only to test the shards alone.
    private let threadFronts: Bool

    /// A store of at most `capacity` entries (at least 1), each kept at most `maximumAge` seconds; `threadFronts: false`
    /// serves every hit from the shared entries (tests of their least-recently-used order).
    package init(capacity: Int, maximumAge: TimeInterval, threadFronts: Bool = true) {
        self.threadFronts = threadFronts
        self.capacity = max(1, capacity)
        self.maximumAge = maximumAge.isFinite ? max(0, maximumAge) : 0
        // Shards let threads hitting different tokens take different locks; small stores keep one exact LRU.
        let count = self.capacity >= 4096 ? 16 : 1
        let perShard = self.capacity / count
        shards = (0..<count).map { _ in Locked(VerifiedTokenShard(capacity: perShard)) }
        serial = Self.serials.withLock { next in
            defer { next &+= 1 }
            return next
        }
        frontHits = (0..<16).map { _ in FrontHitCounter() }
    }

    /// The entries kept now (expired ones included until a lookup, an insertion or a purge meets them).
    package var count: Int { shards.reduce(0) { $0 + $1.withLock { $0.count } } }

    /// How many lookups were served from an entry (for diagnostics and tests).
    package var hits: Int {
        shards.reduce(0) { $0 + $1.withLock { $0.hits } } + frontHits.reduce(0) { $0 + $1.count.load(ordering: .relaxed) }
    }

    /// The verifications in flight.
    package var flightsInFlight: Int { shards.reduce(0) { $0 + $1.withLock { $0.flights.count } } }

    private func shardIndex(_ key: Key) -> Int { Int(truncatingIfNeeded: key.token.words.1 % UInt64(shards.count)) }

    /// The entry for `key` if it holds at `now` (before its `until`, and neither expired nor not yet valid with `leeway`);
    /// otherwise the verification to join or to lead. An entry that no longer holds is dropped.
    package func lookup(_ key: Key, now: Date, leeway: TimeInterval) -> Lookup {
        // Read before the shard: a purge that removes the entry found below moves it afterwards.
        let epoch = epoch.load(ordering: .acquiring)
        let front = threadFronts ? VerifiedTokenFront.current : nil
        if let front, let entry = front.entry(store: serial, key: key, epoch: epoch) {
            if Self.holds(entry, now: now, leeway: leeway) {
                frontHits[front.thread & (frontHits.count - 1)].count.wrappingAdd(1, ordering: .relaxed)
                return .hit(entry.token)
            }
            front.drop(store: serial, key: key)
        }
        let index = shardIndex(key)
        var found: Entry?
        let lookup: Lookup = shards[index].withLock { shard in
            if let entry = shard.entry(for: key) {
                if Self.holds(entry, now: now, leeway: leeway) {
                    shard.hits &+= 1
                    found = entry
                    return .hit(entry.token)
                }
                shard.remove(key)
            }
            if let flight = shard.flights[key] { return .wait(flight) }
            let flight = Flight(shard: index, generation: shard.generation)
            shard.flights[key] = flight
            return .lead(flight)
        }
        if let front, let found {
            let own = Entry(
                token: found.token.detached(), expiresAt: found.expiresAt, notBefore: found.notBefore, until: found.until,
                keySource: found.keySource)
            front.keep(VerifiedTokenFront.Slot(store: serial, key: key, epoch: epoch, entry: own))
        }
        return lookup
    }

    /// Whether `entry` may be served at `now`: the one time rule of JOSE, on the times read when it was inserted.
    static func holds(_ entry: Entry, now: Date, leeway: TimeInterval) -> Bool {
        guard now < entry.until, !JWTClaims.isExpired(entry.expiresAt, now: now, leeway: leeway) else { return false }
        if let notBefore = entry.notBefore, JWTClaims.isNotYetValid(notBefore, now: now, leeway: leeway) { return false }
        return true
    }

    /// The token `flight` verified if it holds at `now`; `nil` when it failed (the caller verifies on its own: failures
    /// are never shared) or no longer holds.
    package func wait(for flight: Flight, now: @Sendable () -> Date, leeway: TimeInterval) async -> AccessToken? {
        let entry: Entry? = await withCheckedContinuation { continuation in
            let finished: Entry?? = shards[flight.shard].withLock { _ in
                if flight.done { return .some(flight.result) }
                flight.waiters.append(continuation)
                return nil
            }
            if let finished { continuation.resume(returning: finished) }
        }
        guard let entry, Self.holds(entry, now: now(), leeway: leeway) else { return nil }
        return entry.token
    }

    /// Ends the verification `flight` leads for `key`: keeps `token` (when given, when it lives past `now`, and when
    /// no key set changed since the flight began) and hands it to the callers waiting.
    package func finish(_ flight: Flight, key: Key, with token: AccessToken?, keySource: ObjectIdentifier?, now: Date) {
        var entry: Entry?
        if let token {
            let expiresAt = token.expiresAt
            let until = min(expiresAt, now.addingTimeInterval(maximumAge))
            if until > now {
                entry = Entry(token: token, expiresAt: expiresAt, notBefore: token.notBefore, until: until, keySource: keySource)
            }
        }
        let waiters = shards[flight.shard].withLock { shard in
            if shard.flights[key] === flight { shard.flights[key] = nil }
            if let entry, shard.generation == flight.generation { shard.insert(entry, for: key) }
            flight.done = true
            flight.result = entry
            defer { flight.waiters = [] }
            return flight.waiters
        }
        for waiter in waiters { waiter.resume(returning: entry) }
    }

    /// Drops every entry whose token matches `predicate`; returns how many.
    @discardableResult
    package func purge(where predicate: (AccessToken) -> Bool) -> Int {
        let removed = shards.reduce(0) { total, shard in total + shard.withLock { $0.removeAll { predicate($0.token) } } }
        // Every front, even when no shard held a match: a front may keep a token its shard has since evicted.
        epoch.wrappingAdd(1, ordering: .releasing)
        return removed
    }

    /// Follows `cache`: each set it fetches drops the entries whose verifying key left it (rule 4).
    package func follow(_ cache: JWKSetCache) {
        let source = ObjectIdentifier(cache)
        cache.whenKeySetFetched { [weak self] set in self?.keySetFetched(set, source: source) }
    }

    /// The set `source` fetched is `set`: verifications in flight are not kept, and entries of `source` whose key is not in `set` are dropped.
    package func keySetFetched(_ set: JWKSet, source: ObjectIdentifier) {
        let kept = Set(set.keys.map { $0.thumbprint() })
        for shard in shards {
            shard.withLock { shard in
                shard.generation &+= 1
                shard.removeAll { $0.keySource == source && !kept.contains($0.token.verifyingKey.thumbprint()) }
            }
        }
        epoch.wrappingAdd(1, ordering: .releasing)
    }
}

/// One thread number's count of front hits, alone in its cache line (the padding keeps two counters from sharing one).
final class FrontHitCounter: Sendable {
    let count = Atomic<Int>(0)
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
}

/// One lock's share of a ``VerifiedTokenStore``: a map to slots of a doubly linked list, most recently used first.
struct VerifiedTokenShard {
    typealias Key = VerifiedTokenStore.Key
    typealias Entry = VerifiedTokenStore.Entry

    private struct Node {
        var key: Key
        var entry: Entry?
        var previous: Int
        var next: Int
    }

    let capacity: Int
    /// Changes with every key set learned: a verification begun before is not inserted.
    var generation: UInt64 = 0
    /// Lookups served from an entry.
    var hits = 0
    var flights: [Key: VerifiedTokenStore.Flight] = [:]
    private var index: [Key: Int] = [:]
    private var nodes: [Node] = []
    private var free: [Int] = []
    private var head = -1
    private var tail = -1

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { index.count }

    /// The entry for `key`, now the most recently used.
    mutating func entry(for key: Key) -> Entry? {
        guard let slot = index[key] else { return nil }
        if slot != head {
            unlink(slot)
            pushFront(slot)
        }
        return nodes[slot].entry
    }

    /// Keeps `entry` for `key`, evicting the least recently used entries beyond the capacity.
    mutating func insert(_ entry: Entry, for key: Key) {
        if let slot = index[key] {
            nodes[slot].entry = entry
            if slot != head {
                unlink(slot)
                pushFront(slot)
            }
            return
        }
        while index.count >= capacity, tail >= 0 { removeSlot(tail) }
        let node = Node(key: key, entry: entry, previous: -1, next: -1)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        index[key] = slot
        pushFront(slot)
    }

    mutating func remove(_ key: Key) {
        if let slot = index[key] { removeSlot(slot) }
    }

    /// Removes the entries matching `predicate`; returns how many.
    @discardableResult
    mutating func removeAll(where predicate: (Entry) -> Bool) -> Int {
        var removed = 0
        var slot = head
        while slot >= 0 {
            let next = nodes[slot].next
            if let entry = nodes[slot].entry, predicate(entry) {
                removeSlot(slot)
                removed += 1
            }
            slot = next
        }
        return removed
    }

    private mutating func removeSlot(_ slot: Int) {
        unlink(slot)
        index[nodes[slot].key] = nil
        nodes[slot].entry = nil
        free.append(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let (previous, next) = (nodes[slot].previous, nodes[slot].next)
        if previous >= 0 { nodes[previous].next = next } else { head = next }
        if next >= 0 { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = -1
        nodes[slot].next = -1
    }

    private mutating func pushFront(_ slot: Int) {
        nodes[slot].previous = -1
        nodes[slot].next = head
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}
