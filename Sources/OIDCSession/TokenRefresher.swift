import OIDC

/// Something that turns a refresh token into new tokens: a ``OIDC/TokenClient``,
/// or a test double.
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
