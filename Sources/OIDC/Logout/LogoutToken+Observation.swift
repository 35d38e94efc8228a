import JOSE

extension LogoutTokenValidator {
    /// Validates `token` and records its `jti`, so the same token is refused next time.
    /// - Parameter token: the logout token, as ``BackChannelLogoutRequest/logoutToken(fromBody:contentType:)`` reads it.
    /// - Throws: ``/OIDCCore/OIDCError`` of category `invalidInput`, such as `.invalidSignature`, `.audienceMismatch` or
    ///   `.replayedLogoutToken`; what `replays` throws when it cannot answer, such as `database_unavailable`.
    public func validate(_ token: String) async throws -> LogoutToken {
        try await observer.observe(.logoutTokenValidation, origin: Observation.origin(of: issuer)) {
            try await validateToken(token)
        }
    }
}
