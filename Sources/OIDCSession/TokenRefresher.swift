import OIDC

/// Something that turns a refresh token into new tokens: a ``OIDC/TokenClient``,
/// or a test double (another token source can plug in here too).
///
/// The contract the session relies on:
/// - Return the token endpoint's answer as it is; the session carries over the old
///   refresh token and ID Token when the answer has none, and checks a new ID Token
///   with its ``OIDC/RefreshedIDTokenPolicy`` before keeping anything. When that check
///   refuses an answer whose refresh token differs from the one sent (rotated), the grant
///   is spent: the session logs out rather than replay the old refresh token.
/// - Throw an ``OIDC/OIDCError`` carrying the token endpoint's HTTP status (``OIDC/OIDCError/httpStatus``)
///   and OAuth error, if any. An OAuth `invalid_grant` (in ``OIDC/OIDCError/oauthError``)
///   means the grant is dead: the session logs out; so does any other HTTP 400 or 401 (an empty body,
///   a body that is no OAuth error, an OAuth error other than one naming the client's configuration),
///   and `refresh_token_spent`, which a refresher throws when its own check (e.g. the token type)
///   refuses an answer that rotated the refresh token (``OIDC/TokenClient``
///   and ``OIDC/OIDCClient`` do). An OAuth error naming the client's configuration (`invalid_client`,
///   `unauthorized_client`, ...) keeps the tokens (`refresh_rejected`); a transport failure, a timeout
///   or a 5xx keeps them too (`refresh_failed`).
/// - A session calls it at most once at a time, and not again within its back-off
///   after a failure.
public protocol TokenRefresher: Sendable {
    /// Uses `refreshToken`; throws an ``OIDC/OIDCError`` (an `invalid_grant` OAuth
    /// error means the grant is gone and the user must log in again).
    func refreshTokens(using refreshToken: String) async throws -> TokenResponse
}

extension TokenClient: TokenRefresher {
    /// The `refresh_token` grant.
    public func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        try await refresh(refreshToken)
    }
}
