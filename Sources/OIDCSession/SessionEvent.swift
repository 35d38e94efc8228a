import OIDC

extension OIDCError.Code {
    /// The refresh was refused (or impossible): the tokens were cleared; the user must log in again.
    public static let loggedOut = OIDCError.Code(rawValue: "logged_out")
    /// The refresh failed for a reason that may pass (transport, 5xx); the tokens were kept.
    public static let refreshFailed = OIDCError.Code(rawValue: "refresh_failed")
    /// A request needing a retry had a one-shot body that cannot be sent again.
    public static let bodyNotReplayable = OIDCError.Code(rawValue: "body_not_replayable")
    /// The session has no tokens (never given, or cleared after a logout).
    public static let notAuthenticated = OIDCError.Code(rawValue: "not_authenticated")
}

/// What happened to a session's tokens.
public enum SessionEvent: Sendable, CustomStringConvertible {
    /// The tokens were refreshed (and saved).
    case refreshed
    /// The refresh was refused; the tokens were cleared. The error says why.
    case loggedOut(OIDCError)

    /// e.g. `logged out: invalid_grant`.
    public var description: String {
        switch self {
        case .refreshed: return "tokens refreshed"
        case .loggedOut(let error): return "logged out: \(error.oauthError?.error ?? error.code.rawValue)"
        }
    }
}
