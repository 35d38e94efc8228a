import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ``PendingLoginStore`` in this process's memory: for one process (a single server,
/// tests). Entries are kept by the SHA-256 of their key, consumed once, refused after expiry,
/// and bounded in number:
///
/// - At most `capacity` live entries in all; a save beyond it is refused
///   (`pending_login_store_full`) rather than evicting a login in progress.
/// - At most `capacityPerScope` live entries per scope (the `scope` of
///   ``saveBytes(_:key:expiresIn:scope:)``: the client's address, say, which only the
///   application knows): one scope that floods the store fills only its own share and a save
///   under another scope is still accepted while the store has room. A save without a scope
///   counts only against `capacity`.
/// - Expired entries are dropped soonest-first from a heap of expiries on every save: a save
///   examines only the entries that have expired (amortized O(log n)), never the whole store.
public actor InMemoryPendingLoginStore: PendingLoginStore {
    private struct Entry {
        let bytes: [UInt8]
        let expiresAt: Date
        let scope: String?
    }

    private var entries: [[UInt8]: Entry] = [:]
    /// Every saved entry's expiry, soonest on top; items of entries consumed early stay until they surface.
    private var expiries = ExpiryHeap<Date, [UInt8]>()
    /// Live entries per scope (only scopes with at least one).
    private var perScope: [String: Int] = [:]
    /// The most live entries kept at once.
    package nonisolated let capacity: Int
    /// The most live entries kept at once for one scope.
    package nonisolated let capacityPerScope: Int
    /// The current time (expiry is judged by it).
    package nonisolated let clock: @Sendable () -> Date
    /// How many heap items expiry handling has examined or rebuilt since the store was made: the work
    /// the bound on save cost is about (a test checks it grows with what expires, not with what is kept).
    package private(set) var expiryWork = 0

    /// An empty store of at most `capacity` (at least 1) live entries, at most `capacityPerScope` of them
    /// per scope (at least 1, at most `capacity`; default: a hundredth of `capacity`).
    public init(capacity: Int = 100_000, capacityPerScope: Int? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        let total = max(1, capacity)
        self.capacity = total
        self.capacityPerScope = min(total, max(1, capacityPerScope ?? total / 100))
        self.clock = clock
    }

    /// Saves `bytes` under `key`, counted against `scope`'s share; drops expired entries first.
    /// - Throws: `pending_login_exists`; `pending_login_store_full` when `capacity` live entries are kept, or
    ///   `capacityPerScope` under `scope`; `pending_login_unreadable` for a lifetime out of range.
    public func saveBytes(_ bytes: [UInt8], key name: String, expiresIn: Double, scope: String?) throws {
        try PendingLoginCoding.checkLifetime(expiresIn)
        let key = try PendingLoginCoding.keyHash(name)
        let now = clock()
        purgeExpired(now: now)
        guard entries[key] == nil else { throw OIDCError(.pendingLoginExists, "a pending login with this key already exists") }
        guard entries.count < capacity else {
            throw OIDCError(.pendingLoginStoreFull, "the pending-login store is full (\(capacity) logins in progress)")
        }
        if let scope {
            guard perScope[scope, default: 0] < capacityPerScope else {
                throw OIDCError(.pendingLoginStoreFull, "this scope's share of the pending-login store is full (\(capacityPerScope) logins in progress)")
            }
            perScope[scope, default: 0] += 1
        }
        let expiresAt = now.addingTimeInterval(expiresIn)
        entries[key] = Entry(bytes: bytes, expiresAt: expiresAt, scope: scope)
        expiries.push(key, expiry: expiresAt)
    }

    /// Takes the bytes saved under `key`, at most once (see ``PendingLoginStore/consumeBytes(key:)``).
    /// - Throws: `pending_login_not_found`, `pending_login_expired`.
    public func consumeBytes(key name: String) throws -> [UInt8] {
        let key = try PendingLoginCoding.keyHash(name)
        guard let entry = remove(key) else {
            throw OIDCError(.pendingLoginNotFound, "no pending login for this key (unknown, already used, or expired and purged)")
        }
        compactIfMostlyStale()
        guard entry.expiresAt > clock() else { throw OIDCError(.pendingLoginExpired, "the pending login for this key has expired") }
        return entry.bytes
    }

    /// Whether a save under `scope` (`nil`: none) would find room now, expired entries dropped first: for
    /// an application that refuses before it prepares a costly login (a request object encrypted to a key
    /// set fetched for it). Not a reservation: a save in between may take the room, and the save itself
    /// still decides.
    public func hasRoom(scope: String?) -> Bool {
        purgeExpired(now: clock())
        guard entries.count < capacity else { return false }
        guard let scope else { return true }
        return perScope[scope, default: 0] < capacityPerScope
    }

    /// Deletes expired entries; returns how many.
    @discardableResult
    public func purgeExpired() -> Int { purgeExpired(now: clock()) }

    /// How many entries (live or expired but not yet purged) the store holds.
    public var count: Int { entries.count }

    /// How many entries (live or expired but not yet purged) the store holds under `scope`.
    public func count(scope: String) -> Int { perScope[scope, default: 0] }

    /// Pops expired items off the heap (soonest first) and deletes their entries; stops at the first live one.
    @discardableResult
    private func purgeExpired(now: Date) -> Int {
        var purged = 0
        while let item = expiries.popExpired(asOf: now) {
            expiryWork += 1
            // A stale item (its entry consumed, or saved again later) deletes nothing.
            if let entry = entries[item.element], entry.expiresAt <= now {
                remove(item.element)
                purged += 1
            }
        }
        return purged
    }

    @discardableResult
    private func remove(_ key: [UInt8]) -> Entry? {
        guard let entry = entries.removeValue(forKey: key) else { return nil }
        if let scope = entry.scope {
            let left = perScope[scope, default: 1] - 1
            perScope[scope] = left > 0 ? left : nil
        }
        return entry
    }

    /// Rebuilds the heap from the live entries once the items of consumed entries outnumber them
    /// (amortized O(1) per consume: a rebuild follows at least as many consumes as it costs).
    private func compactIfMostlyStale() {
        guard expiries.count > 2 * entries.count + 64 else { return }
        expiries = ExpiryHeap(entries.map { (expiry: $0.value.expiresAt, element: $0.key) })
        expiryWork += entries.count
    }
}
