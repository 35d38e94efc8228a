import JOSE
import OIDC

/// What the refresh step of a coordinated refresh produced.
public enum RefreshStepResult: Sendable {
    /// The provider issued these tokens: store them for everyone.
    case refreshed(TokenResponse)
    /// The provider refused the grant (`invalid_grant`, no refresh token): the user
    /// must log in again; the store forgets the tokens for everyone.
    case refused(OIDCError)
}

/// How a coordinated refresh ended for the caller.
public enum CoordinatedRefreshResult: Sendable {
    /// This caller refreshed; the new tokens are stored.
    case refreshed(TokenResponse)
    /// Someone else (another session, process or replica) already replaced the
    /// caller's tokens: use these; nothing was sent to the provider.
    case alreadyRefreshed(TokenResponse)
    /// This caller refreshed but storing the new tokens failed (the error says why): the
    /// caller should use them, and report the failure; other sharers still see the old tokens.
    case refreshedNotStored(TokenResponse, OIDCError)
    /// The tokens are gone: refused by this caller's refresh (the error says why)
    /// or cleared by someone else before (`nil`). Nothing further was sent.
    case loggedOut(OIDCError?)
}

/// A token store shared by several sessions, processes or replicas, that runs
/// "refresh these tokens unless someone already did" once among them.
///
/// Guarantee: among all callers that present the same stale tokens, the refresh
/// step runs at most once while those tokens are stored; every other caller waits
/// for it and then gets ``CoordinatedRefreshResult/alreadyRefreshed(_:)``
/// (or ``CoordinatedRefreshResult/loggedOut(_:)`` when that refresh was refused).
/// How a store excludes the others is its own: ``FileTokenStore`` holds a `flock` (released
/// when its process dies); `OIDCPostgres`'s store records a renewed *lease* in the row and holds
/// no transaction or lock across the provider call, so a dropped database connection neither
/// frees the refresh for a second caller nor loses the holder's result (a lease passes on only
/// when its holder stopped renewing it: dead, or cut off for a whole lease). A waiter that runs
/// out of time gets the store's typed timeout, never a second refresh. ``AuthenticatedSession`` uses this path whenever its
/// store conforms; the store is then the source of truth: give a session its
/// tokens through the store (`resume(from:)`, or `inject`, which saves), since a
/// refresh finds "no stored tokens" to mean that someone logged the user out.
///
/// "Unchanged" means the same access and refresh tokens, compared in constant
/// time: a stronger version check than a counter, and one the caller can make
/// without knowing the store's internals.
public protocol CoordinatedTokenStore: TokenStore {
    /// Excludes the other callers (the store's lock or lease), compares the stored tokens with `stale`, and:
    /// - stored tokens differ from `stale` → returns them (`alreadyRefreshed`), no refresh;
    /// - no stored tokens → `loggedOut(nil)`, no refresh;
    /// - unchanged → runs `refresh` with the stored tokens, the others excluded;
    ///   `.refreshed` saves its tokens (`refreshedNotStored` when that fails: the provider
    ///   has issued them, so they are not dropped), `.refused` clears the store; a thrown
    ///   error (transport, 5xx) leaves the stored tokens as they were and is rethrown.
    ///
    /// A store may cancel `refresh`'s task when it can no longer exclude the others (`OIDCPostgres`
    /// does when its lease could not be renewed, before the lease can pass on): `refresh` should
    /// honour cancellation and send nothing once cancelled.
    func coordinatedRefresh(
        replacing stale: TokenResponse,
        _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult
    ) async throws
        -> CoordinatedRefreshResult
}

extension TokenResponse {
    /// Whether `other` is the same grant state: the same access and refresh tokens
    /// (compared in constant time). Coordinated stores use it as the version check.
    package func hasSameTokens(as other: TokenResponse) -> Bool {
        ConstantTime.equals(accessToken, other.accessToken)
            && ConstantTime.equals(refreshToken ?? "", other.refreshToken ?? "") && (refreshToken == nil) == (other.refreshToken == nil)
    }
}
