#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ``ReplayCache`` in this process's memory: the default of every validator that checks replays.
///
/// Bounded: at most ``capacity`` live entries. When it is full, expired entries are dropped first;
/// if every entry is still live, a new identifier is refused (a replay check that cannot remember
/// never answers "first use"). Entries leave at their own expiry, which the validator computed
/// from its acceptance rule, so nothing is forgotten while a token carrying it can still pass.
/// Replicas behind one load balancer need a shared cache instead (`OIDCPostgres`).
public actor MemoryReplayCache: ReplayCache {
    private struct Key: Hashable {
        let scope: String
        let identifier: String
    }

    /// The most live identifiers remembered (default 100 000).
    public nonisolated let capacity: Int
    private var entries: [Key: Date] = [:]

    /// Creates an empty cache holding at most `capacity` live identifiers (at least 1).
    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// Records `identifier` within `scope` until `expiry`; `false` when it is already recorded
    /// with an expiry after `now`, or when the cache is full of live entries.
    public func recordFirstUse(of identifier: String, scope: String, until expiry: Date, now: Date) -> Bool {
        let key = Key(scope: scope, identifier: identifier)
        if let recorded = entries[key], recorded > now { return false }
        if entries.count >= capacity { entries = entries.filter { $0.value > now } }
        guard entries.count < capacity else { return false }
        entries[key] = expiry
        return true
    }

    /// The number of identifiers held (live or not yet dropped), for tests and metrics.
    public var count: Int { entries.count }
}
