import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProtectedResourceMetadata {
    /// The document of a resource server accepting `issuer`'s tokens with `proofs`' DPoP algorithms
    /// (``ResourceGuard/protectedResourceMetadata(resource:scopes:authorizationDetailsTypes:)``).
    static func forResourceServer(
        resource: String, issuer: String, proofs: DPoPProofValidator, scopes: [String]?,
        authorizationDetailsTypes: [String]?
    ) throws -> ProtectedResourceMetadata {
        _ = try ProtectedResourceDiscovery.metadataURL(forResource: resource)
        var metadata = ProtectedResourceMetadata(resource: resource, authorizationServers: [issuer])
        metadata.scopesSupported = scopes
        metadata.bearerMethodsSupported = ["header"]
        metadata.dpopSigningAlgValuesSupported = proofs.challengeAlgorithms
        metadata.authorizationDetailsTypesSupported = authorizationDetailsTypes
        return metadata
    }
}

extension AccessTokenValidator {
    /// The RFC 9728 document of this validator (``ResourceGuard/protectedResourceMetadata(resource:scopes:authorizationDetailsTypes:)``).
    package func protectedResourceMetadata(
        resource: String? = nil, scopes: [String]? = nil,
        authorizationDetailsTypes: [String]? = nil
    ) throws -> ProtectedResourceMetadata {
        try ProtectedResourceMetadata.forResourceServer(
            resource: resource ?? audience, issuer: issuer, proofs: proofs, scopes: scopes,
            authorizationDetailsTypes: authorizationDetailsTypes)
    }
}
