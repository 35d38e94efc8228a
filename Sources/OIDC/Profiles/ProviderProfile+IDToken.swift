extension ProviderProfile {
    /// The profile's `iss` rule for an ID Token (in place of the exact comparison), and its narrowings.
    /// - Throws: ``OIDCError`` `.issuerMismatch`, `.tenantNotAllowed`, `.hostedDomainNotAllowed`.
    package func checkIssuer(_ issuer: String, of token: IDToken, configured: String) throws {
        try checkIssuer(issuer, claims: token.claims, configured: configured)
    }
}
