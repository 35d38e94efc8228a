#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Remembers one-time identifiers (a DPoP proof's `jti`, a logout token's `jti`) so that a second
/// use is refused for as long as the first could still be accepted.
///
/// One concept for every replay check of the receiving side: `DPoPProofValidator` and
/// `LogoutTokenValidator` take any `ReplayCache`. ``InMemoryReplayCache`` serves one process;
/// `OIDCPostgres` has one that every replica shares. The validator computes `expiry` from its own
/// acceptance rule (`iat` + maximum age + leeway, or `exp` + leeway) on its own clock, so a cache
/// never guesses a window.
///
/// A cache is bounded per scope as well as in total, so one scope (a proof key, an issuer) can
/// fill only its own share: a full share answers ``ReplayCacheOutcome/full`` for that scope's new
/// identifiers, never ``ReplayCacheOutcome/replayed``, and never refuses another scope for it.
public protocol ReplayCache: Sendable {
    /// Records `identifier` within `scope` (an issuer, a proof key's thumbprint) until `expiry`.
    ///
    /// - Returns: ``ReplayCacheOutcome/firstUse`` when it was recorded; ``ReplayCacheOutcome/replayed``
    ///   when the same `scope` and `identifier` are already recorded with an expiry after `now`;
    ///   ``ReplayCacheOutcome/full`` when the cache cannot take this new identifier (the scope's share,
    ///   or the whole cache, is full of live entries): it refuses rather than forgets, and says so.
    /// - Throws: when the cache cannot answer (e.g. its database is unreachable); the validator
    ///   then refuses the token: an unanswered replay check never passes.
    func recordFirstUse(of identifier: String, scope: String, until expiry: Date, now: Date) async throws -> ReplayCacheOutcome
}

extension ReplayCache {
    /// Records `identifier` under `scope` until `expiry`, or throws: `replayed` for an identifier already recorded,
    /// `.replayCacheFull` (after a ``OIDCEvent/Kind/replayCacheFull`` event to `observer`) when the scope's share is
    /// full of live entries; what the cache throws when it cannot answer. The one replay step of every one-time token.
    /// - Parameter what: the token's name in the full-cache error, e.g. "this logout token".
    package func recordOnce(
        _ identifier: String, scope: String, until expiry: Date, now: Date, what: String, observer: (any OIDCObserver)?,
        replayed: @autoclosure () -> OIDCError
    ) async throws {
        switch try await recordFirstUse(of: identifier, scope: scope, until: expiry, now: now) {
        case .firstUse: return
        case .replayed: throw replayed()
        case .full:
            observer?.record(
                OIDCEvent(kind: .replayCacheFull, outcome: .failure(code: OIDCError.Code.replayCacheFull.rawValue), origin: Observation.origin(of: scope)))
            throw OIDCError(
                .replayCacheFull, "the replay cache's share for this issuer is full of live entries, so \(what) cannot be remembered and is refused")
        }
    }
}

/// A ``ReplayCache`` that can forget one identifier it recorded, so that a token whose processing failed after its
/// record (a Security Event Token whose effect could not run) is accepted when delivered again.
///
/// `package`: the caches of this package conform (memory, PostgreSQL, Redis); an application's own cache that does
/// not is still a ``ReplayCache``, and what needs the release says what it does without one.
package protocol ReleasableReplayCache: ReplayCache {
    /// Forgets `identifier` within `scope`: the next ``ReplayCache/recordFirstUse(of:scope:until:now:)`` of it is a
    /// first use again. Nothing happens when it is not recorded.
    /// - Throws: when the cache cannot answer.
    func release(_ identifier: String, scope: String) async throws
}
