#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The former logout-token replay cache: now a thin wrapper over ``MemoryReplayCache``.
///
/// ``LogoutTokenValidator`` takes any ``ReplayCache`` and computes each entry's expiry from its own
/// acceptance rule and clock, so through the validator this cache's ``window`` and ``clock`` no longer
/// matter (the validator's ``LogoutTokenValidator/maximumAge`` replaced the window). Only
/// ``record(issuer:jwtID:)`` still uses them, for callers not yet moved to ``ReplayCache``.
@available(*, deprecated, message: "use MemoryReplayCache (or any ReplayCache); LogoutTokenValidator's maximumAge replaces the window")
public actor LogoutReplayCache: ReplayCache {
    /// Seconds ``record(issuer:jwtID:)`` remembers a `jti` (default 600).
    public nonisolated let window: TimeInterval
    /// The most live identifiers remembered.
    public nonisolated let capacity: Int
    /// The time ``record(issuer:jwtID:)`` uses.
    public nonisolated let clock: @Sendable () -> Date
    private let entries: MemoryReplayCache

    /// Creates an empty cache.
    public init(window: TimeInterval = 600, capacity: Int = 100_000, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.window = max(0, window)
        self.capacity = max(1, capacity)
        self.clock = clock
        entries = MemoryReplayCache(capacity: capacity)
    }

    /// ``ReplayCache`` conformance: as ``MemoryReplayCache/recordFirstUse(of:scope:until:now:)``.
    public func recordFirstUse(of identifier: String, scope: String, until expiry: Date, now: Date) async -> Bool {
        await entries.recordFirstUse(of: identifier, scope: scope, until: expiry, now: now)
    }

    /// Records `jwtID` from `issuer` for ``window`` seconds from ``clock``'s now; `false` when it is
    /// already recorded and live (or the cache is full of live entries).
    public func record(issuer: String, jwtID: String) async -> Bool {
        let now = clock()
        return await entries.recordFirstUse(of: jwtID, scope: issuer, until: now.addingTimeInterval(window), now: now)
    }
}
