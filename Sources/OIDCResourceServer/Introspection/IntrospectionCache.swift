#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// Introspection answers kept for a while, keyed by (introspection endpoint, SHA-256 of the
/// token): the token itself is never stored, and one cache shared by introspectors of
/// different providers never hands one provider's answer to another's question.
///
/// - An entry is kept no longer than ``maximumLifetime`` and, for an active token with
///   `exp`, no longer than that `exp`.
/// - At most ``capacity`` entries: expired ones are dropped first, then the oldest.
public actor IntrospectionCache {
    struct Key: Hashable {
        /// The introspection endpoint that answered (its absolute URL).
        let endpoint: String
        let digest: [UInt8]
        init(token: String, endpoint: URL) {
            self.endpoint = endpoint.absoluteString
            digest = DigestAlgorithm.sha256.hash(Array(token.utf8))
        }
    }

    private struct Entry {
        let result: IntrospectionResult
        let until: Date
        let sequence: UInt64
    }

    /// The most entries kept.
    public nonisolated let capacity: Int
    /// The longest an entry is kept, in seconds.
    public nonisolated let maximumLifetime: TimeInterval
    /// Whether `active: false` answers are kept too (default `true`: a revoked token stays revoked).
    public nonisolated let cachesInactive: Bool
    /// The current time.
    public nonisolated let clock: @Sendable () -> Date

    private var entries: [Key: Entry] = [:]
    private var nextSequence: UInt64 = 0

    /// Creates a cache (default: 10 000 entries, 5 minutes).
    public init(capacity: Int = 10_000, maximumLifetime: TimeInterval = 300, cachesInactive: Bool = true,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.capacity = max(1, capacity)
        self.maximumLifetime = max(0, maximumLifetime)
        self.cachesInactive = cachesInactive
        self.clock = clock
    }

    /// The number of entries (expired ones included until they are dropped).
    public var count: Int { entries.count }

    /// The cached answer of the introspection endpoint `endpoint` for `token`, if fresh.
    public func result(for token: String, at endpoint: URL) -> IntrospectionResult? {
        let key = Key(token: token, endpoint: endpoint)
        guard let entry = entries[key] else { return nil }
        guard entry.until > clock() else {
            entries[key] = nil
            return nil
        }
        return entry.result
    }

    /// Keeps `endpoint`'s answer `result` for `token` (for the time the rules above allow; not at
    /// all when that is none).
    public func store(_ result: IntrospectionResult, for token: String, at endpoint: URL) {
        let now = clock()
        var until = now.addingTimeInterval(maximumLifetime)
        switch result {
        case .active(let token):
            if let expiresAt = token.expiresAt { until = min(until, expiresAt) }
        case .inactive:
            guard cachesInactive else { return }
        }
        guard until > now else { return }
        let key = Key(token: token, endpoint: endpoint)
        if entries[key] == nil, entries.count >= capacity { evict(now: now) }
        nextSequence &+= 1
        entries[key] = Entry(result: result, until: until, sequence: nextSequence)
    }

    /// Forgets `endpoint`'s entry for `token` (e.g. after revoking it).
    public func remove(_ token: String, at endpoint: URL) { entries[Key(token: token, endpoint: endpoint)] = nil }

    private func evict(now: Date) {
        entries = entries.filter { $0.value.until > now }
        while entries.count >= capacity, let oldest = entries.min(by: { $0.value.sequence < $1.value.sequence }) {
            entries[oldest.key] = nil
        }
    }
}
