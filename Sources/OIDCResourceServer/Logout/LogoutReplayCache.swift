#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `jti` values of logout tokens received within a window, per issuer (bounded).
/// ``LogoutTokenValidator`` refuses tokens older than the window, so a token cannot be
/// replayed after its `jti` is forgotten.
public actor LogoutReplayCache {
    private struct Key: Hashable {
        let issuer: String
        let jwtID: String
    }

    /// Seconds a `jti` is remembered (default 600).
    public nonisolated let window: TimeInterval
    /// The most `jti` values remembered; when full, a new token is refused rather than an
    /// old entry forgotten (default 100 000).
    public nonisolated let capacity: Int
    /// The current time.
    public nonisolated let clock: @Sendable () -> Date
    private var seen: [Key: Date] = [:]

    /// Creates an empty cache.
    public init(window: TimeInterval = 600, capacity: Int = 100_000, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.window = max(0, window)
        self.capacity = max(1, capacity)
        self.clock = clock
    }

    /// Records `jwtID` from `issuer`; `false` when it was already seen within the window
    /// (or the cache is full of live entries).
    public func record(issuer: String, jwtID: String) -> Bool {
        let now = clock()
        let key = Key(issuer: issuer, jwtID: jwtID)
        if let at = seen[key], now.timeIntervalSince(at) < window { return false }
        if seen.count >= capacity { seen = seen.filter { now.timeIntervalSince($0.value) < window } }
        guard seen.count < capacity else { return false }
        seen[key] = now
        return true
    }
}
