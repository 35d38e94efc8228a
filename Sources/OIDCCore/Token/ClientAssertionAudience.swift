#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `aud` of a `private_key_jwt` / `client_secret_jwt` client assertion.
///
/// ``issuer`` is the default: the current guidance (RFC 7523bis, FAPI 2.0)
/// that closes the audience-injection weakness of endpoint-URL audiences.
/// ``endpointURL`` is for providers that insist on the URL of the endpoint
/// called (glewlwyd 2.7.5 wants the PAR or token endpoint URL and refuses
/// the issuer identifier). It is a named setting, never guessed.
public enum ClientAssertionAudience: String, Sendable, Hashable, Codable, CaseIterable {
    /// `aud` = the issuer identifier.
    case issuer
    /// `aud` = the URL of the endpoint the assertion is sent to.
    case endpointURL = "endpoint"
}

extension ClientAssertionAudience {
    /// The `aud` of a client assertion sent to `endpoint`: the issuer identifier exactly as the provider
    /// spells it (draft-ietf-oauth-rfc7523bis: the sole value, compared as a simple string), or the endpoint URL.
    /// The one place ``TokenClient`` and the introspection client take it from.
    /// - Throws: ``OIDCError`` `.invalidTokenRequest` for ``issuer`` when no issuer is known (a
    ///   ``TokenClient`` made from a bare endpoint: choose ``endpointURL`` explicitly), `.invalidIssuerURL`.
    package func audience(for endpoint: URL, issuer: String?) throws -> String {
        switch self {
        case .endpointURL: return endpoint.absoluteString
        case .issuer:
            guard let issuer else {
                throw OIDCError(
                    .invalidTokenRequest,
                    "the client assertion audience is the issuer, but no issuer is known: pass issuer: or assertionAudience: .endpointURL")
            }
            guard URL(string: issuer) != nil else { throw OIDCError(.invalidIssuerURL, "the issuer is not a URL") }
            return issuer
        }
    }
}
