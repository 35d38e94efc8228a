#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// How the `auth_time` of an ID Token from a refresh may relate to the original's
/// (OpenID Connect Core §12.2 says it must be "the time of the original authentication").
///
/// Real providers report the user's **latest** authentication instead: django-oauth-toolkit
/// sets `auth_time` to the user's last login, so after the same user logs in a second time
/// anywhere, every earlier session's refresh carries the later time. ``sameOrLater`` (the
/// default) accepts that — the user did authenticate again — and refuses a time that moves
/// backwards; ``unchanged`` is the strict reading.
public enum RefreshAuthTimeRule: Sendable, Hashable {
    /// The refreshed `auth_time` equals the original's or is later (the user authenticated
    /// again); an earlier one is refused. The default.
    case sameOrLater
    /// The refreshed `auth_time` must equal the original's exactly (the letter of §12.2);
    /// a provider that reports the latest login then ends a session at the user's next login elsewhere.
    case unchanged
}

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
    ///   - rule: how `auth_time` may change (``RefreshAuthTimeRule/sameOrLater`` unless said otherwise).
    /// - Throws: ``OIDCError`` `.refreshIssuerChanged`, `.refreshSubjectChanged`,
    ///   `.refreshAudienceChanged`, `.refreshAuthorizedPartyChanged`, `.refreshNonceChanged`,
    ///   `.refreshAuthTimeChanged`.
    public func checkIsRefresh(of original: IDToken, authTime rule: RefreshAuthTimeRule = .sameOrLater) throws {
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
            throw OIDCError(.refreshNonceChanged, original.nonce == nil
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
                throw OIDCError(.refreshAuthTimeChanged,
                                "the refreshed ID Token's \"auth_time\" is later than the original's (the policy requires it unchanged)")
            }
        }
    }
}
