import OIDC

/// Turns a refresh token into new tokens for a session: an ``OIDC/OIDCClient``, a ``OIDC/TokenClient``, or your own.
///
/// The contract the session relies on:
/// - Return the token endpoint's answer as it is. The session carries over the old refresh token and ID Token
///   when the answer has none, and checks a new ID Token with its ``/OIDC/RefreshedIDTokenPolicy`` before keeping
///   anything. When that check refuses an answer that rotated the refresh token, the grant is spent and the
///   session logs out rather than replay the old one.
/// - Throw an ``/OIDCCore/OIDCError`` carrying the token endpoint's HTTP status and OAuth error, if any. An
///   `invalid_grant`, any other HTTP 400 or 401 that does not name the client's configuration, and
///   `refresh_token_spent` mean the grant is dead: the session logs out. An OAuth error naming the client's
///   configuration, such as `invalid_client`, keeps the tokens (`refresh_rejected`); so do a transport failure,
///   a timeout and a 5xx (`refresh_failed`).
/// - A session calls it at most once at a time, and not again within its back-off after a failure.
public protocol TokenRefresher: Sendable {
    /// New tokens for `refreshToken`.
    /// - Throws: ``/OIDCCore/OIDCError``; an `invalid_grant` OAuth error means the user must log in again.
    func refreshTokens(using refreshToken: String) async throws -> TokenResponse
}

extension TokenClient: TokenRefresher {
    /// The `refresh_token` grant.
    public func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        try await refresh(refreshToken)
    }
}
