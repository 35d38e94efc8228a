#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// A ``ReplayCache`` in this process's memory: the default of every validator that checks replays.
///
/// Bounded: at most ``capacity`` live entries. Entries leave at their own expiry, which the
/// validator computed from its acceptance rule, so nothing is forgotten while a token carrying it
/// can still pass. Each record first drops what expired by its `now` (soonest first, from a heap:
/// O(log n), never a scan of the whole cache); if every remaining entry is still live and the cache
/// is full, a new identifier is refused (a replay check that cannot remember never answers
/// "first use"). A clock stepped back by the caller does not bring back what was already dropped.
///
/// Safe to share between tasks and threads: one lock guards the entries and a record never
/// suspends, so concurrent validators do not queue behind an actor.
/// Replicas behind one load balancer need a shared cache instead (`OIDCPostgres`).
public final class MemoryReplayCache: ReplayCache, Sendable {
    private struct Key: Hashable, Sendable {
        let scope: String
        let identifier: String
    }

    private struct Entries: Sendable {
        var expiries: [Key: Date] = [:]
        var queue = ExpiryQueue<Key>()

        /// Drops every entry whose expiry is at or before `now`.
        mutating func dropExpired(asOf now: Date) {
            while let (expiry, key) = queue.popExpired(asOf: now) {
                if expiries[key] == expiry { expiries[key] = nil }
            }
        }
    }

    /// The most live identifiers remembered (default 100 000).
    public let capacity: Int
    private let entries = Locked(Entries())

    /// Creates an empty cache holding at most `capacity` live identifiers (at least 1).
    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// Records `identifier` within `scope` until `expiry`; `false` when it is already recorded
    /// with an expiry after `now`, or when the cache is full of live entries.
    public func recordFirstUse(of identifier: String, scope: String, until expiry: Date, now: Date) -> Bool {
        let key = Key(scope: scope, identifier: identifier)
        let capacity = self.capacity
        return entries.withLock { entries in
            entries.dropExpired(asOf: now)
            if let recorded = entries.expiries[key], recorded > now { return false }
            guard entries.expiries.count < capacity else { return false }
            entries.expiries[key] = expiry
            entries.queue.push(key, expiry: expiry)
            return true
        }
    }

    /// The number of identifiers held (live, or expired and not yet dropped by a later record),
    /// for tests and metrics.
    public var count: Int { entries.withLock { $0.expiries.count } }
}
