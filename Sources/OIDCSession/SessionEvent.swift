import OIDC

extension OIDCError.Code {
    /// The refresh was refused (or impossible, or its answer rotated the refresh token and was
    /// refused by our checks): the tokens were cleared; the user must log in again.
    public static let loggedOut = OIDCError.Code(rawValue: "logged_out")
    /// The refresh failed for a reason that may pass (transport, 5xx); the tokens were kept.
    public static let refreshFailed = OIDCError.Code(rawValue: "refresh_failed")
    /// The provider refused the refresh with an OAuth error other than `invalid_grant`
    /// (e.g. `invalid_client`, `unauthorized_client`: a client-side or server-side
    /// configuration problem, not a dead grant); the tokens were kept.
    public static let refreshRejected = OIDCError.Code(rawValue: "refresh_rejected")
    /// A request needing a retry had a one-shot body that cannot be sent again.
    public static let bodyNotReplayable = OIDCError.Code(rawValue: "body_not_replayable")
    /// The session has no tokens (never given, or cleared after a logout).
    public static let notAuthenticated = OIDCError.Code(rawValue: "not_authenticated")
    /// A logout's cause: the access token was refused and there was no refresh token.
    public static let noRefreshToken = OIDCError.Code(rawValue: "no_refresh_token")
    /// A logout's cause: another session or replica sharing the store cleared the tokens (its refresh was refused).
    public static let clearedByAnotherSession = OIDCError.Code(rawValue: "cleared_by_another_session")
}

/// What happened to a session's tokens.
public enum SessionEvent: Sendable, CustomStringConvertible {
    /// The tokens were refreshed (and handed to the store).
    case refreshed
    /// The refresh was refused; the tokens were cleared. The error says why.
    case loggedOut(OIDCError)
    /// The token store failed to save refreshed tokens or to clear them after a
    /// logout (`.tokenStoreFailure` and the like). The session goes on with the tokens
    /// in memory; the stored copy is stale, so a later run may start logged out.
    case storeFailed(OIDCError)
    /// A refresh failed and the grant lives on: the tokens were kept (`refresh_failed`,
    /// `refresh_rejected`, or a refreshed ID Token's own code such as `refresh_nonce_changed`).
    /// Emitted for every such failure — also when the request itself went on with the
    /// still-valid current token (a failed proactive refresh) — so none is silent.
    case refreshFailed(OIDCError)

    /// e.g. `logged out: invalid_grant`, `logged out: refresh_token_spent`, `refresh failed: refresh_failed`:
    /// a logout names its cause (the provider's OAuth error, else ``OIDC/OIDCError/cause``).
    public var description: String {
        switch self {
        case .refreshed: return "tokens refreshed"
        case .loggedOut(let error): return "logged out: \(error.oauthError?.error ?? error.cause?.rawValue ?? error.code.rawValue)"
        case .storeFailed(let error): return "token store failed: \(error.code.rawValue)"
        case .refreshFailed(let error): return "refresh failed: \(error.oauthError?.error ?? error.code.rawValue)"
        }
    }
}
