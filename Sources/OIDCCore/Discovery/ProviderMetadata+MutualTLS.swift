#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProviderMetadata {
    /// The endpoints a client using mutual TLS calls at their `mtls_endpoint_aliases` entry when the
    /// provider publishes one (RFC 8705 §5): token, revocation, introspection, PAR, UserInfo, device
    /// authorization and CIBA.
    package static let mutualTLSAliasedEndpoints: [ProviderEndpoint] = [
        .token, .revocation, .introspection, .pushedAuthorizationRequest, .userinfo, .deviceAuthorization, .backchannelAuthentication,
    ]

    /// This document with each of ``mutualTLSAliasedEndpoints`` replaced by its `mtls_endpoint_aliases`
    /// entry when there is one (RFC 8705 §5); endpoints without an alias keep their URL. The aliases pass
    /// the same https and issuer rules as every other endpoint (``checkEndpointSecurity()``).
    /// ``OIDCClient`` applies it when its authentication ``ClientAuthentication/usesMutualTLS`` or
    /// ``OIDCClient/Configuration/usesMutualTLSEndpoints`` is set.
    /// - Throws: ``OIDCError`` `.invalidIssuerURL` for an alias that is not a URL, `.insecureURL` for one
    ///   that is not https (http only on loopback with an http loopback issuer), naming it in ``OIDCError/endpoint``.
    package func withMutualTLSEndpointAliases() throws -> ProviderMetadata {
        guard let aliases = mtlsEndpointAliases, !aliases.isEmpty else { return self }
        var copy = self
        for endpoint in Self.mutualTLSAliasedEndpoints {
            guard let text = aliases[endpoint.rawValue] else { continue }
            guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
                throw OIDCError(
                    .invalidIssuerURL, "\(ProviderEndpoint.mtlsAlias(endpoint.rawValue)) is not a URL",
                    endpoint: .mtlsAlias(endpoint.rawValue))
            }
            try SecureURLPolicy.checkEndpoint(url, .mtlsAlias(endpoint.rawValue), issuer: issuer)
            switch endpoint {
            case .token: copy.tokenEndpoint = url
            case .revocation: copy.revocationEndpoint = url
            case .introspection: copy.introspectionEndpoint = url
            case .pushedAuthorizationRequest: copy.pushedAuthorizationRequestEndpoint = url
            case .userinfo: copy.userinfoEndpoint = url
            case .deviceAuthorization: copy.deviceAuthorizationEndpoint = url
            case .backchannelAuthentication: copy.backchannelAuthenticationEndpoint = url
            default: break
            }
        }
        return copy
    }
}
