import JOSE

extension IDToken {
    /// Checks that an ID Token from a refresh response (OpenID Connect Core §12.2)
    /// identifies the same session as `original`: same `iss`, `sub`, `aud` (as a set)
    /// and `azp`, and — when the new token carries `auth_time` — the same `auth_time`.
    ///
    /// Validate the new token with ``IDTokenValidator`` first; this only compares.
    /// - Throws: ``OIDCError`` `.refreshIssuerChanged`, `.refreshSubjectChanged`,
    ///   `.refreshAudienceChanged`, `.refreshAuthorizedPartyChanged`, `.refreshAuthTimeChanged`.
    public func checkIsRefresh(of original: IDToken) throws {
        guard issuer == original.issuer else {
            throw OIDCError(.refreshIssuerChanged, "the refreshed ID Token has a different \"iss\"")
        }
        guard subject == original.subject else {
            throw OIDCError(.refreshSubjectChanged, "the refreshed ID Token has a different \"sub\"")
        }
        guard Set(audience) == Set(original.audience), hasAudience == original.hasAudience else {
            throw OIDCError(.refreshAudienceChanged, "the refreshed ID Token has a different \"aud\"")
        }
        guard authorizedParty == original.authorizedParty else {
            throw OIDCError(.refreshAuthorizedPartyChanged, "the refreshed ID Token has a different \"azp\"")
        }
        if let authTime, authTime != original.authTime {
            throw OIDCError(.refreshAuthTimeChanged, "the refreshed ID Token has a different \"auth_time\"")
        }
    }
}
