import JOSE

extension LogoutTokenValidator {
    /// Validates `token`. Recorded as ``OIDC/OIDCEvent/Kind/logoutTokenValidation`` when ``observer`` is set.
    /// - Parameter token: the logout token (from ``BackChannelLogoutRequest/logoutToken(fromBody:contentType:)``).
    /// - Throws: ``OIDC/OIDCError``: signature and key codes, `.expired`, `.issuedInFuture`,
    ///   `.issuerMismatch`, `.audienceMismatch`, `.unexpectedTokenType`, `.missingLogoutTokenClaim`
    ///   (a required `iat`, `jti` or `events` absent; the reason names it), `.invalidLogoutToken`
    ///   (the reason names the rule), `.replayedLogoutToken`, `.replayCacheFull` (the issuer's share of the replay cache is full).
    public func validate(_ token: String) async throws -> LogoutToken {
        try await observer.observe(.logoutTokenValidation, origin: Observation.origin(of: issuer)) {
            try await validateToken(token)
        }
    }
}
