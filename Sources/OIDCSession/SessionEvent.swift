import OIDC

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
    /// a logout names its cause (the provider's OAuth error, else ``/OIDCCore/OIDCError/cause``).
    public var description: String {
        switch self {
        case .refreshed: return "tokens refreshed"
        case .loggedOut(let error): return "logged out: \(error.oauthError?.error ?? error.cause?.rawValue ?? error.code.rawValue)"
        case .storeFailed(let error): return "token store failed: \(error.code.rawValue)"
        case .refreshFailed(let error): return "refresh failed: \(error.oauthError?.error ?? error.code.rawValue)"
        }
    }
}
