/// A finished login: tokens whose type the client accepts, and an ID Token validated against everything the
/// pending login asked for.
///
/// ``OIDCClient/finishLogin(_:callback:)`` returns it. It holds secrets: ``description`` and `Mirror` show none.
public struct LoginResult: Sendable, CustomStringConvertible, CustomReflectable {
    /// The tokens (access token, refresh token, the ID Token's compact form, expiry).
    public let tokens: TokenResponse
    /// The validated ID Token, typed.
    public let idToken: IDToken
    /// The checked authorization response (`session_state`, `iss`, extra parameters).
    public let authorizationResponse: AuthorizationResponse

    /// A result from its parts.
    package init(tokens: TokenResponse, idToken: IDToken, authorizationResponse: AuthorizationResponse) {
        self.tokens = tokens
        self.idToken = idToken
        self.authorizationResponse = authorizationResponse
    }

    /// `LoginResult(TokenResponse(...), IDToken(...))`, no secret.
    public var description: String { "LoginResult(\(tokens), \(idToken))" }
    /// Only the redacted token summary.
    public var customMirror: Mirror { Mirror(self, children: ["tokens": tokens.description, "idToken": idToken.description]) }
}
