#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OIDC

/// A ``PendingLoginStore`` in this process's memory: for one process (a single server,
/// tests). Entries are keyed by the SHA-256 of `state`, consumed once, refused after expiry,
/// and bounded in number: expired entries are dropped on every save, and a save beyond
/// ``capacity`` live entries is refused (`pending_login_unreadable`) rather than evicting a
/// login in progress.
public actor InMemoryPendingLoginStore: PendingLoginStore {
    private var entries: [[UInt8]: (bytes: [UInt8], expiresAt: Date)] = [:]
    /// The most live entries kept at once.
    public nonisolated let capacity: Int
    /// The current time (expiry is judged by it).
    public nonisolated let clock: @Sendable () -> Date

    /// An empty store of at most `capacity` (at least 1) live entries.
    public init(capacity: Int = 100_000, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.capacity = max(1, capacity)
        self.clock = clock
    }

    /// Saves `bytes` under `state` (see ``PendingLoginStore/saveBytes(_:state:expiresIn:)``); drops expired entries first.
    /// - Throws: `pending_login_exists`; `pending_login_unreadable` for a lifetime out of range or a full store.
    public func saveBytes(_ bytes: [UInt8], state: String, expiresIn: Double) throws {
        try PendingLoginCoding.checkLifetime(expiresIn)
        let key = try PendingLoginCoding.stateHash(state)
        let now = clock()
        purgeExpired(now: now)
        guard entries[key] == nil else { throw OIDCError(.pendingLoginExists, "a pending login with this state already exists") }
        guard entries.count < capacity else {
            throw OIDCError(.pendingLoginUnreadable, "the pending-login store is full (\(capacity) logins in progress)")
        }
        entries[key] = (bytes, now.addingTimeInterval(expiresIn))
    }

    /// Takes the bytes saved under `state`, at most once (see ``PendingLoginStore/consumeBytes(state:)``).
    public func consumeBytes(state: String) throws -> [UInt8] {
        let key = try PendingLoginCoding.stateHash(state)
        guard let entry = entries.removeValue(forKey: key) else {
            throw OIDCError(.pendingLoginNotFound, "no pending login for this state (unknown, already used, or expired and purged)")
        }
        guard entry.expiresAt > clock() else { throw OIDCError(.pendingLoginExpired, "the pending login for this state has expired") }
        return entry.bytes
    }

    /// Deletes expired entries; returns how many.
    @discardableResult
    public func purgeExpired() -> Int { purgeExpired(now: clock()) }

    /// How many entries (live or expired but not yet purged) the store holds.
    public var count: Int { entries.count }

    @discardableResult
    private func purgeExpired(now: Date) -> Int {
        let before = entries.count
        entries = entries.filter { $0.value.expiresAt > now }
        return before - entries.count
    }
}
