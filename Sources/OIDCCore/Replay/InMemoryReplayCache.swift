import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ``ReplayCache`` in this process's memory: the default of every validator that checks replays.
///
/// **Bounded in total and per scope.** At most ``capacity`` live entries in all, and at most
/// ``scopeCapacity`` in one scope (one proof key's thumbprint, one issuer). A scope whose share is
/// full gets ``ReplayCacheOutcome/full`` for its new identifiers until its own entries expire; no
/// other scope is refused for it. When the whole cache is full (many scopes, each within its share),
/// room is made fairly: a scope holding the most entries (within a factor of two, found without a scan)
/// gives up the older half of them (soonest expiry first), and that scope then refuses, as ``ReplayCacheOutcome/full``, any identifier whose
/// expiry is not later than the latest it gave up, until those entries would have expired. A
/// validator computes the expiry from the token itself, so a replay of a dropped identifier comes
/// with an expiry at or below that mark and is refused, while fresh tokens (later expiries) pass:
/// nothing is forgotten that could be replayed. Only when every scope holds a single entry (a flood
/// of as many scopes as the cache has room for) is a new identifier refused as ``ReplayCacheOutcome/full``
/// outright: a server open to unauthenticated DPoP proofs needs rate limiting by client address in front.
/// The number of scopes is bounded by ``capacity`` (a scope exists only while it holds an entry).
///
/// **Retention on a monotonic clock.** The validator's `expiry` and `now` are wall-clock times; at
/// record time the cache turns them into a deadline on a monotonic clock (`ContinuousClock` by
/// default: now + (expiry − now)), and entries leave when that clock passes their deadline. A wall
/// clock stepped forward or back after the record neither drops a live entry nor keeps one longer.
/// Expired entries are dropped soonest first from a heap: O(log n) per record, never a scan of the
/// whole cache or of all scopes.
///
/// Safe to share between tasks and threads: one lock guards the entries and a record never
/// suspends, so concurrent validators do not queue behind an actor.
/// Replicas behind one load balancer need a shared cache instead (`OIDCPostgres`).
public final class InMemoryReplayCache: ReplayCache, Sendable {
    /// The most live identifiers remembered in all (default 100 000).
    public let capacity: Int
    /// The most live identifiers remembered for one scope (default ``capacity`` / 10, so 10 000:
    /// a key sending more than about 27 proofs per second for the default 361-second retention).
    public let scopeCapacity: Int
    /// The longest an entry is kept, in seconds (ten years): a later expiry counts as this.
    package static let longestRetention: Double = 315_360_000

    private let monotonicNow: @Sendable () -> ContinuousClock.Instant
    private let origin: ContinuousClock.Instant
    private let state = Locked(State())

    /// Creates an empty cache.
    /// - Parameters:
    ///   - capacity: the most live identifiers in all (at least 1; default 100 000).
    ///   - scopeCapacity: the most live identifiers of one scope (1 ... `capacity`; `nil`: `capacity` / 10, at least 1).
    ///   - monotonicClock: the clock retention runs on (default `ContinuousClock.now`); a test may pass
    ///     one it advances itself. Never the wall clock: a step of the wall clock must not move deadlines.
    public init(
        capacity: Int = 100_000, scopeCapacity: Int? = nil,
        monotonicClock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.capacity = max(1, capacity)
        self.scopeCapacity = min(self.capacity, max(1, scopeCapacity ?? self.capacity / 10))
        monotonicNow = monotonicClock
        origin = monotonicClock()
    }

    /// Records `identifier` within `scope` until `expiry` (held until the monotonic clock has advanced by
    /// `expiry` − `now`).
    /// - Returns: ``ReplayCacheOutcome/replayed`` when it is recorded and live;
    ///   ``ReplayCacheOutcome/full`` when the scope's share is full, the scope gave up entries expiring
    ///   no earlier than `expiry`, or the whole cache is full of single-entry scopes;
    ///   ``ReplayCacheOutcome/firstUse`` otherwise (an `expiry` not after `now` needs no record).
    public func recordFirstUse(of identifier: String, scope: String, until expiry: Date, now: Date) -> ReplayCacheOutcome {
        let elapsed = (monotonicNow() - origin).components
        let mono = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        var lifetime = expiry.timeIntervalSince(now)
        if lifetime.isNaN || lifetime > Self.longestRetention { lifetime = Self.longestRetention }
        let deadline = mono + lifetime
        let capacity = self.capacity, scopeCapacity = self.scopeCapacity
        return state.withLock { state in
            state.dropExpired(asOf: mono)
            if state.queue.count > 2 * capacity + 64 { state.compactQueue() }
            if let index = state.scopes.index(forKey: scope), state.scopes.values[index].entries[identifier] != nil { return .replayed }
            guard deadline > mono else { return .firstUse }
            if state.refusesBelowMark(scope: scope, expiry: expiry, mono: mono) { return .full }
            if state.held(by: scope) >= scopeCapacity { return .full }
            if state.total >= capacity {
                guard state.evictFromLargestScope() else { return .full }
                if state.refusesBelowMark(scope: scope, expiry: expiry, mono: mono) { return .full }
            }
            state.insert(identifier, scope: scope, entry: Entry(deadline: deadline, expiry: expiry))
            return .firstUse
        }
    }

    /// Forgets `identifier` within `scope` (its queued deadline is skipped when it comes).
    package func release(_ identifier: String, scope: String) {
        state.withLock { state in state.remove(identifier, scope: scope) }
    }

    /// The number of live identifiers held (entries whose deadline passed leave at the next record),
    /// for tests and metrics.
    public var count: Int { state.withLock { $0.total } }

    /// The number of scopes holding at least one identifier, for tests and metrics.
    public var scopeCount: Int { state.withLock { $0.scopes.count } }

    // MARK: - State

    /// One remembered identifier: its deadline on the monotonic clock (seconds since ``origin``) and
    /// the wall-clock expiry the validator gave (for the mark a scope keeps after giving up entries).
    private struct Entry: Sendable {
        package var deadline: Double
        package var expiry: Date
    }

    /// A mark left by entries given up to make room: identifiers expiring at or before `expiry` are
    /// refused until the monotonic clock reaches `until` (the latest deadline given up).
    private struct Mark: Sendable {
        package var expiry: Date
        package var until: Double

        package mutating func raise(to other: Mark) {
            expiry = max(expiry, other.expiry)
            until = max(until, other.until)
        }
    }

    private struct Scope: Sendable {
        package var entries: [String: Entry] = [:]
        package var mark: Mark?
    }

    private struct Held: Sendable {
        package let scope: String
        package let identifier: String
    }

    private struct State: Sendable {
        package var scopes: [String: Scope] = [:]
        package var total = 0
        package var queue = ExpiryHeap<Double, Held>()  // deadlines: seconds on the monotonic clock
        /// `bySize[k]`: the scopes holding 2^k ... 2^(k+1) − 1 entries, so one of the largest (within a
        /// factor of two) is found by looking at 64 sets, and a scope changes set only when its count
        /// crosses a power of two.
        package var bySize = [Set<String>](repeating: [], count: Int.bitWidth)
        /// The mark of scopes that left (all their entries expired) while their mark was still live.
        package var retiredMark: Mark?

        package func held(by scope: String) -> Int { scopes[scope]?.entries.count ?? 0 }

        package func refusesBelowMark(scope: String, expiry: Date, mono: Double) -> Bool {
            if let mark = retiredMark, mark.until > mono, expiry <= mark.expiry { return true }
            if let mark = scopes[scope]?.mark, mark.until > mono, expiry <= mark.expiry { return true }
            return false
        }

        /// The size class of a scope holding `count` (≥ 1) entries: ⌊log2 count⌋.
        package static func sizeClass(_ count: Int) -> Int { Int.bitWidth - 1 - count.leadingZeroBitCount }

        /// Moves `scope` from the set of its `old` count to that of its `new` count, when they differ.
        package mutating func resize(_ scope: String, from old: Int, to new: Int) {
            let from = old > 0 ? Self.sizeClass(old) : -1, to = new > 0 ? Self.sizeClass(new) : -1
            guard from != to else { return }
            if from >= 0 { bySize[from].remove(scope) }
            if to >= 0 { bySize[to].insert(scope) }
        }

        package mutating func insert(_ identifier: String, scope: String, entry: Entry) {
            let old: Int
            if let index = scopes.index(forKey: scope) {
                old = scopes.values[index].entries.count
                scopes.values[index].entries[identifier] = entry
            } else {
                old = 0
                scopes[scope] = Scope(entries: [identifier: entry])
            }
            total += 1
            resize(scope, from: old, to: old + 1)
            queue.push(Held(scope: scope, identifier: identifier), expiry: entry.deadline)
        }

        /// Removes one entry; a scope left empty leaves the cache (its mark, while live, stays as the retired mark).
        package mutating func remove(_ identifier: String, scope: String) {
            guard let index = scopes.index(forKey: scope), scopes.values[index].entries.removeValue(forKey: identifier) != nil else { return }
            total -= 1
            let left = scopes.values[index].entries.count
            resize(scope, from: left + 1, to: left)
            guard left == 0 else { return }
            if let mark = scopes.values[index].mark {
                if retiredMark == nil { retiredMark = mark } else { retiredMark?.raise(to: mark) }
            }
            scopes.remove(at: index)
        }

        /// Drops every entry whose deadline is at or before `mono`; a scope left empty leaves the cache.
        package mutating func dropExpired(asOf mono: Double) {
            while let (deadline, held) = queue.popExpired(asOf: mono) {
                guard let index = scopes.index(forKey: held.scope),
                    scopes.values[index].entries[held.identifier]?.deadline == deadline
                else { continue }  // given up earlier
                scopes.values[index].entries[held.identifier] = nil
                total -= 1
                let left = scopes.values[index].entries.count
                resize(held.scope, from: left + 1, to: left)
                guard left == 0 else { continue }
                if let mark = scopes.values[index].mark, mark.until > mono {
                    if retiredMark == nil { retiredMark = mark } else { retiredMark?.raise(to: mark) }
                }
                scopes.remove(at: index)
            }
            if let mark = retiredMark, mark.until <= mono { retiredMark = nil }
        }

        /// Makes room: a scope holding the most entries (at least two; within a factor of two of the largest) gives up the half of them that
        /// expire soonest and keeps a mark refusing their replays. `false` when every scope holds one entry.
        package mutating func evictFromLargestScope() -> Bool {
            guard let largest = bySize.indices.dropFirst().last(where: { !bySize[$0].isEmpty }),
                let victim = bySize[largest].first, let index = scopes.index(forKey: victim)
            else { return false }
            let held = scopes.values[index].entries.count
            let givenUp = scopes.values[index].entries.sorted { $0.value.deadline < $1.value.deadline }.prefix(held / 2)
            var mark = scopes.values[index].mark
            for (identifier, entry) in givenUp {
                scopes.values[index].entries[identifier] = nil
                let dropped = Mark(expiry: entry.expiry, until: entry.deadline)
                if mark == nil { mark = dropped } else { mark?.raise(to: dropped) }
            }
            scopes.values[index].mark = mark
            total -= givenUp.count
            resize(victim, from: held, to: held - givenUp.count)
            return true
        }

        /// Drops queued deadlines of entries given up to make room (they would otherwise stay until their deadline).
        package mutating func compactQueue() {
            let scopes = self.scopes
            queue.retain { deadline, held in scopes[held.scope]?.entries[held.identifier]?.deadline == deadline }
        }
    }
}

extension InMemoryReplayCache: ReleasableReplayCache {}
