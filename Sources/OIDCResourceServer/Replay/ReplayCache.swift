#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Remembers one-time identifiers (a DPoP proof's `jti`, a logout token's `jti`) so that a second
/// use is refused for as long as the first could still be accepted.
///
/// One concept for every replay check of the receiving side: ``DPoPProofValidator`` and
/// ``LogoutTokenValidator`` take any `ReplayCache`. ``MemoryReplayCache`` serves one process;
/// `OIDCPostgres` has one that every replica shares. The validator computes `expiry` from its own
/// acceptance rule (`iat` + maximum age + leeway, or `exp` + leeway) on its own clock, so a cache
/// never guesses a window.
public protocol ReplayCache: Sendable {
    /// Records `identifier` within `scope` (an issuer, a proof key's thumbprint) until `expiry`.
    ///
    /// - Returns: `true` for a first use; `false` when the same `scope` and `identifier` are
    ///   already recorded with an expiry after `now` (a replay), or when the cache cannot take
    ///   another live entry (it refuses rather than forgets).
    /// - Throws: when the cache cannot answer (e.g. its database is unreachable); the validator
    ///   then refuses the token: an unanswered replay check never passes.
    func recordFirstUse(of identifier: String, scope: String, until expiry: Date, now: Date) async throws -> Bool
}
