#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProviderMetadata {
    /// Every URL of this document that the library calls or sends a browser to, with
    /// its name: authorization, token, userinfo, `jwks_uri`, registration, revocation,
    /// introspection, end-session, check-session, PAR, device and CIBA endpoints, and the
    /// `mtls_endpoint_aliases` (an alias that is not a URL is listed as unparseable).
    /// Informational pages (`service_documentation`, `op_policy_uri`, `op_tos_uri`) are not listed.
    package var callableEndpoints: [(endpoint: ProviderEndpoint, url: URL?)] {
        var list: [(endpoint: ProviderEndpoint, url: URL?)] = []
        let named: [(ProviderEndpoint, URL?)] = [
            (.authorization, authorizationEndpoint), (.token, tokenEndpoint), (.userinfo, userinfoEndpoint), (.jwks, jwksURI),
            (.registration, registrationEndpoint), (.revocation, revocationEndpoint), (.introspection, introspectionEndpoint),
            (.endSession, endSessionEndpoint), (.checkSessionIframe, checkSessionIframe),
            (.pushedAuthorizationRequest, pushedAuthorizationRequestEndpoint), (.deviceAuthorization, deviceAuthorizationEndpoint),
            (.backchannelAuthentication, backchannelAuthenticationEndpoint),
        ]
        for (endpoint, url) in named where url != nil { list.append((endpoint, url)) }
        for (name, text) in (mtlsEndpointAliases ?? [:]).sorted(by: { $0.key < $1.key }) {
            list.append((.mtlsAlias(name), URL(string: text)))
        }
        return list
    }

    /// Applies ``SecureURLPolicy/checkEndpoint(_:_:issuer:)`` to every
    /// ``callableEndpoints`` entry against this document's ``issuer``: with an `https`
    /// issuer every endpoint must be `https`; `http` is allowed only on loopback hosts
    /// of an `http` loopback issuer. ``Discovery`` runs it on every document it returns;
    /// run it yourself on metadata you build by hand.
    /// - Throws: ``OIDCError`` `.insecureURL` / `.invalidIssuerURL` naming the first offending endpoint in ``OIDCError/endpoint``.
    package func checkEndpointSecurity() throws {
        for (endpoint, url) in callableEndpoints {
            guard let url else {
                throw OIDCError(.invalidIssuerURL, "\(endpoint) is not a URL", endpoint: endpoint)
            }
            try SecureURLPolicy.checkEndpoint(url, endpoint, issuer: issuer)
        }
    }
}
