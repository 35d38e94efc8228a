import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a client is about to do, as the FAPI 2.0 profile check sees it.
package struct FAPI2Configuration: Sendable {
    /// The provider's metadata (PAR endpoint, RFC 9207 support).
    package var metadata: ProviderMetadata
    /// How the client authenticates.
    package var authentication: ClientAuthentication
    /// The DPoP binding: the sender constraint.
    package var dpop: DPoPBinding?
    /// The authorization request (response type, response mode, PKCE).
    package var request: OAuthRequest
    /// Whether the request is pushed (PAR).
    package var pushesAuthorizationRequests: Bool
    /// The ID Token algorithms the client accepts; `nil` means the provider's list.
    package var idTokenAlgorithms: Set<JWSAlgorithm>?
    /// The clock-skew tolerance for ID Token time claims, seconds.
    package var leeway: TimeInterval
    /// Whether the client requires RFC 9207 `iss` in authorization responses on its own
    /// (``OIDCClient/Configuration/requireIssuerParameter``), whatever the metadata says.
    package var clientRequiresIssuerParameter: Bool
    /// Whether the client refuses an authorization response without RFC 9207 `iss`: the metadata advertises
    /// `authorization_response_iss_parameter_supported`, or ``clientRequiresIssuerParameter``.
    package var requiresIssuerParameter: Bool { metadata.requiresIssuerParameter(clientRequires: clientRequiresIssuerParameter) }

    /// Describes a configuration.
    package init(
        metadata: ProviderMetadata, authentication: ClientAuthentication, dpop: DPoPBinding?, request: OAuthRequest,
        pushesAuthorizationRequests: Bool = true, idTokenAlgorithms: Set<JWSAlgorithm>? = nil, leeway: TimeInterval = 10,
        clientRequiresIssuerParameter: Bool = false
    ) {
        self.clientRequiresIssuerParameter = clientRequiresIssuerParameter
        self.metadata = metadata
        self.authentication = authentication
        self.dpop = dpop
        self.request = request
        self.pushesAuthorizationRequests = pushesAuthorizationRequests
        self.idTokenAlgorithms = idTokenAlgorithms
        self.leeway = leeway
    }
}

/// The client rules of the FAPI 2.0 Security Profile, in one place: a
/// configuration is checked before anything is sent, and each rule it breaks is
/// an ``OIDCError`` with its own code.
///
/// Rules: PAR (and a provider PAR endpoint); `response_type=code` without a
/// fragment response mode; PKCE with S256; RFC 9207 `iss` required in the response
/// (advertised by the provider, or required by the client's own setting); DPoP as the sender constraint
/// (mTLS is not offered by this library, so DPoP is required); `private_key_jwt`;
/// PS256, ES256 or EdDSA (also under its RFC 9864 name, Ed25519) for ID Tokens, client assertions and DPoP proofs; a
/// clock-skew tolerance of at most 60 seconds.
package enum FAPI2Profile {
    /// The algorithms FAPI 2.0 allows (Security Profile §5.4); EdDSA with Ed25519 also by its fully-specified name (RFC 9864).
    package static let algorithms: Set<JWSAlgorithm> = [.ps256, .es256, .eddsa, .ed25519]
    /// The largest clock-skew tolerance (a JWT up to 60 s in the future is the profile's limit).
    package static let maximumLeeway: TimeInterval = 60

    /// Every rule the configuration breaks, in the order listed above (empty when compliant).
    package static func violations(of configuration: FAPI2Configuration) -> [OIDCError] {
        var found: [OIDCError] = []
        func fail(_ code: OIDCError.Code, _ reason: String) { found.append(OIDCError(code, "FAPI 2.0: " + reason)) }
        if !configuration.pushesAuthorizationRequests {
            fail(.fapiPARRequired, "the authorization request must be pushed (PAR)")
        } else if configuration.metadata.pushedAuthorizationRequestEndpoint == nil {
            fail(.fapiPARRequired, "the provider has no pushed_authorization_request_endpoint")
        }
        let request = configuration.request
        if request.responseType != .code {
            fail(.fapiResponseTypeNotAllowed, "response_type must be code")
        } else if let mode = request.responseMode, mode.rawValue.contains("fragment") {
            fail(.fapiResponseTypeNotAllowed, "the response mode must not put the response in the fragment")
        }
        if request.pkce?.method != .s256 {
            fail(.fapiPKCERequired, "PKCE with S256 is required")
        }
        if !configuration.requiresIssuerParameter {
            fail(
                .fapiIssuerParameterRequired,
                "the provider must send iss in authorization responses (RFC 9207) and the client "
                    + "must require it: the metadata does not advertise authorization_response_iss_parameter_supported")
        }
        if let dpop = configuration.dpop {
            if !algorithms.contains(dpop.key.algorithm) {
                fail(.fapiAlgorithmNotAllowed, "DPoP proofs must use PS256, ES256 or EdDSA, not \(dpop.key.algorithm.rawValue)")
            }
        } else {
            fail(.fapiSenderConstraintRequired, "tokens must be sender-constrained: configure DPoP")
        }
        if case .privateKeyJWT(_, _, let algorithm) = configuration.authentication {
            if !algorithms.contains(algorithm) {
                fail(.fapiAlgorithmNotAllowed, "client assertions must use PS256, ES256 or EdDSA, not \(algorithm.rawValue)")
            }
        } else {
            fail(.fapiClientAuthenticationNotAllowed, "client authentication must be private_key_jwt, not \(configuration.authentication.methodName)")
        }
        let idTokenAlgorithms =
            configuration.idTokenAlgorithms.map { $0.map(\.rawValue) }
            ?? configuration.metadata.idTokenSigningAlgValuesSupported ?? ["RS256"]
        let outside = Set(idTokenAlgorithms).subtracting(algorithms.map(\.rawValue)).sorted()
        if !outside.isEmpty {
            fail(.fapiAlgorithmNotAllowed, "ID Token algorithms must be limited to PS256, ES256 and EdDSA (also allowed: \(outside.joined(separator: ", ")))")
        }
        if !(0...maximumLeeway).contains(configuration.leeway) {
            fail(.fapiClockSkewTooLarge, "the clock-skew tolerance must be between 0 and \(Int(maximumLeeway)) seconds")
        }
        return found
    }

    /// Throws the first rule the configuration breaks.
    /// - Throws: ``OIDCError`` with one of the `fapi_*` codes.
    package static func check(_ configuration: FAPI2Configuration) throws {
        if let first = violations(of: configuration).first { throw first }
    }
}
