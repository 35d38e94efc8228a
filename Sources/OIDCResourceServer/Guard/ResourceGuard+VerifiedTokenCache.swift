#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ResourceGuard {
    /// How many verified JWT access tokens a guard keeps so that a token presented again skips its signature check,
    /// and for how long; on by default (``defaultCapacity`` entries, ``defaultMaximumAge`` seconds), ``off`` by name.
    ///
    /// A kept token is served only under the rules of <doc:CachingVerifiedTokens>: keyed by the token's SHA-256 and the
    /// guard's policy, successes only, never past `exp` (re-checked with the leeway on every hit, with the required
    /// scopes), dropped when its key leaves the issuer's key set, and never for anything replay-checked: the DPoP
    /// proof, its binding, the nonce and a certificate binding are checked on every request.
    public struct VerifiedTokenCache: Sendable, Hashable {
        /// The most tokens kept (least recently used evicted first); `0`: no cache. Each entry holds the token's
        /// decoded header and claims (about 1 to 2 KiB for a typical token).
        public var capacity: Int
        /// The longest a token is kept, in seconds (never past its `exp`).
        public var maximumAge: TimeInterval

        /// The default capacity: 10 000 tokens.
        public static let defaultCapacity = 10_000
        /// The default maximum age: 60 seconds.
        public static let defaultMaximumAge: TimeInterval = 60
        /// No cache: every request verifies its token's signature.
        public static let off = VerifiedTokenCache(capacity: 0)

        /// A cache of `capacity` tokens kept at most `maximumAge` seconds each.
        public init(capacity: Int = defaultCapacity, maximumAge: TimeInterval = defaultMaximumAge) {
            self.capacity = capacity
            self.maximumAge = maximumAge
        }

        /// The store these settings describe; `nil` when they turn the cache off.
        package func makeStore() -> VerifiedTokenStore? {
            guard capacity > 0, maximumAge > 0 else { return nil }
            return VerifiedTokenStore(capacity: capacity, maximumAge: maximumAge)
        }
    }

    /// Which tokens ``ResourceGuard/purge(_:)`` forgets: those of a subject, of a session, or one token.
    public enum Purge: Sendable, Hashable {
        /// Every token whose `sub` is this (the subject a logout or a revocation signal names).
        case subject(String)
        /// Every token whose `sid` is this (a back-channel logout's session).
        case session(String)
        /// The token whose `jti` is this (an introspection answer of `active: false` names one token).
        case tokenID(String)
    }

    /// Forgets the verified tokens and introspection answers `purge` selects, from the next request on: a token of a
    /// purged subject is then verified (or introspected) again, and a revoked one refused by the issuer's answer or
    /// the signals that triggered the purge.
    /// - Returns: how many cached tokens and answers were forgotten.
    @discardableResult
    public func purge(_ purge: Purge) async -> Int {
        let tokens =
            verifiedTokens?.purge { token in
                switch purge {
                case .subject(let subject): return token.subject == subject
                case .session(let session): return token.sessionID == session
                case .tokenID(let id): return token.jwtID == id
                }
            } ?? 0
        let answers = await introspector?.cache?.purge(purge) ?? 0
        return tokens + answers
    }
}
