#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OIDCCore

extension AccessTokenValidator {
    /// The RFC 9728 metadata document this resource server publishes: `resource` (default: the validator's
    /// ``audience``, the identifier its tokens are for), `authorization_servers` = [``issuer``],
    /// `bearer_methods_supported` = `["header"]` (the only method accepted by default),
    /// `dpop_signing_alg_values_supported` = the proof algorithms of ``proofs``, and the scopes given.
    /// Serve ``OIDC/ProtectedResourceMetadata/jsonString`` at ``OIDC/ProtectedResourceDiscovery/metadataURL(forResource:)``
    /// and add that URL to challenges with ``AccessTokenRefusal/advertising(resourceMetadata:)``.
    /// - Parameters:
    ///   - resource: the resource identifier; `nil`: ``audience``.
    ///   - scopes: `scopes_supported`; `nil`: not published.
    ///   - authorizationDetailsTypes: `authorization_details_types_supported` (RFC 9396); `nil`: not published.
    /// - Throws: ``OIDC/OIDCError`` `.invalidIssuerURL` / `.insecureURL` when the resource identifier is not an
    ///   https URL (http on loopback) without a fragment, so that its well-known URL exists.
    public func protectedResourceMetadata(resource: String? = nil, scopes: [String]? = nil,
                                          authorizationDetailsTypes: [String]? = nil) throws -> ProtectedResourceMetadata {
        let resource = resource ?? audience
        _ = try ProtectedResourceDiscovery.metadataURL(forResource: resource)
        var metadata = ProtectedResourceMetadata(resource: resource, authorizationServers: [issuer])
        metadata.scopesSupported = scopes
        metadata.bearerMethodsSupported = ["header"]
        metadata.dpopSigningAlgValuesSupported = proofs.challengeAlgorithms
        metadata.authorizationDetailsTypesSupported = authorizationDetailsTypes
        return metadata
    }
}
