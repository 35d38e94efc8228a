/// How a decoupled login through ``OIDCClient`` ended (CIBA poll mode, the device authorization grant).
///
/// Unlike the token client's raw polling outcome, a grant here has been checked: its `token_type`
/// is one the client uses and its ID Token is validated.
public enum DecoupledLogin: Sendable, CustomStringConvertible {
    /// The user approved. `idToken` is the validated ID Token (always present for CIBA; for the device
    /// grant only when the provider returned one).
    case loggedIn(tokens: TokenResponse, idToken: IDToken?)
    /// The user (or the provider) refused: `access_denied`.
    case denied(OAuthError)
    /// The request expired before a decision: `expired_token` (from the provider, or the local deadline).
    case expired(OAuthError)

    /// `loggedIn(IDToken(...))`, `denied: access_denied` or `expired: expired_token`; never a token.
    public var description: String {
        switch self {
        case .loggedIn(_, let idToken): return idToken.map { "loggedIn(\($0))" } ?? "loggedIn(no ID Token)"
        case .denied(let error): return "denied: \(error.error)"
        case .expired(let error): return "expired: \(error.error)"
        }
    }
}
