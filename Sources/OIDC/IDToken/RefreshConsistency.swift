import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension IDToken {
    /// Checks that an ID Token from a refresh response (OpenID Connect Core §12.2)
    /// identifies the same session as `original`: same `iss`, `sub`, `aud` (as a set)
    /// and `azp`, always; when the new token carries `nonce`, the original's `nonce`;
    /// when it carries `auth_time`, an `auth_time` that `authTime` allows (by default
    /// the original's or a later one, never an earlier one; the original must then have one too).
    ///
    /// Validate the new token with ``IDTokenValidator`` first; this only compares.
    /// - Parameters:
    ///   - original: the ID Token the session holds (of the login, or of the last accepted refresh).
    ///   - rule: how `auth_time` may change (``RefreshedIDTokenPolicy/AuthTimeRule/sameOrLater`` unless said otherwise).
    /// - Throws: ``OIDCError`` `.refreshIssuerChanged`, `.refreshSubjectChanged`,
    ///   `.refreshAudienceChanged`, `.refreshAuthorizedPartyChanged`, `.refreshNonceChanged`,
    ///   `.refreshAuthTimeChanged`.
    package func checkIsRefresh(of original: IDToken, authTime rule: RefreshedIDTokenPolicy.AuthTimeRule = .sameOrLater) throws {
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
        if let nonce, nonce != original.nonce {
            throw OIDCError(
                .refreshNonceChanged,
                original.nonce == nil
                    ? "the refreshed ID Token has a \"nonce\" and the original had none"
                    : "the refreshed ID Token has a different \"nonce\"")
        }
        if let authTime {
            guard let originalTime = original.authTime else {
                throw OIDCError(.refreshAuthTimeChanged, "the refreshed ID Token has an \"auth_time\" and the original had none")
            }
            if authTime < originalTime {
                throw OIDCError(.refreshAuthTimeChanged, "the refreshed ID Token's \"auth_time\" is earlier than the original's")
            }
            if authTime > originalTime, rule == .unchanged {
                throw OIDCError(
                    .refreshAuthTimeChanged,
                    "the refreshed ID Token's \"auth_time\" is later than the original's (the policy requires it unchanged)")
            }
        }
    }
}
