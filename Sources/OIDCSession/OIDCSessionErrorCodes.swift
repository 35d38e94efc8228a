import JOSE
import OIDC

/// Every error code of `OIDCSession` (the session and its stores), in one place, each with the category an application
/// branches on (``/OIDCCore/OIDCError/Category``). The strings are stable: they are the API.
extension OIDCError.Code {
    // MARK: authenticateAgain

    /// No pending login under this key: never started, already finished (a replayed
    /// callback), or purged after expiry.
    public static let pendingLoginNotFound = OIDCError.Code("pending_login_not_found", .authenticateAgain)
    /// The pending login under this key had expired (it is now deleted).
    public static let pendingLoginExpired = OIDCError.Code("pending_login_expired", .authenticateAgain)
    /// A session holds a DPoP-bound access token (`token_type: DPoP`) but no DPoP key to prove
    /// possession: the token is not sent (never downgraded to Bearer).
    public static let dpopKeyMissing = OIDCError.Code("dpop_key_missing", .authenticateAgain)
    /// The refresh was refused (or impossible, or its answer rotated the refresh token and was
    /// refused by our checks): the tokens were cleared; the user must log in again.
    public static let loggedOut = OIDCError.Code("logged_out", .authenticateAgain)
    /// The session has no tokens (never given, or cleared after a logout).
    public static let notAuthenticated = OIDCError.Code("not_authenticated", .authenticateAgain)
    /// A logout's cause: the access token was refused and there was no refresh token.
    public static let noRefreshToken = OIDCError.Code("no_refresh_token", .authenticateAgain)
    /// A logout's cause: another session or replica sharing the store cleared the tokens (its refresh was refused).
    public static let clearedByAnotherSession = OIDCError.Code("cleared_by_another_session", .authenticateAgain)
    /// The session was ended by a signal (a Shared Signals event such as CAEP session-revoked, or a back-channel
    /// logout) through ``AuthenticatedSession/end(because:)``: its tokens are gone and no refresh is attempted.
    public static let sessionRevoked = OIDCError.Code("session_revoked", .authenticateAgain)

    // MARK: providerRefused

    /// The provider refused the refresh with an OAuth error other than `invalid_grant`
    /// (e.g. `invalid_client`, `unauthorized_client`: a client-side or server-side
    /// configuration problem, not a dead grant); the tokens were kept.
    public static let refreshRejected = OIDCError.Code("refresh_rejected", .providerRefused)

    // MARK: unavailable

    /// The pending-login store keeps as many logins in progress as it may, in all or under the save's
    /// scope (``InMemoryPendingLoginStore``, `PostgresPendingLoginStore`): the login is refused, no login
    /// in progress is evicted.
    /// A transient condition (try again later), not a fault of the stored data.
    public static let pendingLoginStoreFull = OIDCError.Code("pending_login_store_full", .unavailable)
    /// The token file's refresh lock was not granted in time.
    public static let tokenFileLockTimeout = OIDCError.Code("token_file_lock_timeout", .unavailable)
    /// The refresh failed for a reason that may pass (transport, 5xx); the tokens were kept.
    public static let refreshFailed = OIDCError.Code("refresh_failed", .unavailable)
    /// A caller waited for another replica's refresh until its deadline (`waitTimeout`); the tokens
    /// are unchanged and the other replica may still finish. Retry later.
    public static let refreshWaitTimeout = OIDCError.Code("refresh_wait_timeout", .unavailable)
    /// A refresh's result was not stored because its lease had been taken over (or the row was
    /// replaced by a new login) meanwhile: fencing kept it from overwriting a newer generation.
    public static let refreshLeaseLost = OIDCError.Code("refresh_lease_lost", .unavailable)
    /// The refresh lease could not be renewed before the end of its usable part (the database
    /// unreachable or the row locked), so the provider call was abandoned (cancelled) before another
    /// replica could take the lease over. The tokens are unchanged; retry later.
    public static let refreshLeaseNotRenewed = OIDCError.Code("refresh_lease_not_renewed", .unavailable)

    // MARK: configuration

    /// A pending login under this key already exists (a key must be fresh per login).
    public static let pendingLoginExists = OIDCError.Code("pending_login_exists", .configuration)
    /// The token file is readable or writable by other users.
    public static let tokenFileTooOpen = OIDCError.Code("token_file_too_open", .configuration)
    /// The token path is not a regular file owned by the current user (a FIFO, device,
    /// directory, symbolic link or someone else's file).
    public static let tokenFileNotRegular = OIDCError.Code("token_file_not_regular", .configuration)
    /// An encryption key or key set is unusable (wrong length, empty or duplicate id).
    public static let invalidEncryptionKey = OIDCError.Code("invalid_encryption_key", .configuration)

    // MARK: storage

    /// A pending login could not be encoded or decoded as the caller's type, or a store's
    /// bound (size, lifetime) refused it.
    public static let pendingLoginUnreadable = OIDCError.Code("pending_login_unreadable", .storage)
    /// The pending-login store itself failed (a file could not be written or read).
    public static let pendingLoginStoreFailure = OIDCError.Code("pending_login_store_failure", .storage)
    /// The token file could not be read or written.
    public static let tokenStoreFailure = OIDCError.Code("token_store_failure", .storage)
    /// A stored row could not be decrypted: unknown key id, wrong key, or altered ciphertext.
    public static let decryptionFailed = OIDCError.Code(JOSEError.Code.decryptionFailed, .storage)
}
