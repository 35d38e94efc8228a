import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// OpenID Provider / OAuth 2.0 Authorization Server metadata: every field
/// registered by OpenID Connect Discovery 1.0 §3, RFC 8414, RFC 7009, RFC 9207
/// and the OpenID logout and session specifications, typed; any other member
/// is kept in ``additionalFields``.
public struct ProviderMetadata: Sendable, Hashable, Codable {
    /// `issuer`: the issuer identifier, compared exactly (REQUIRED).
    public var issuer: String
    /// `authorization_endpoint` (OIDC Discovery §3; REQUIRED).
    public var authorizationEndpoint: URL?
    /// `token_endpoint` (REQUIRED unless only the implicit flow is used).
    public var tokenEndpoint: URL?
    /// `userinfo_endpoint`.
    public var userinfoEndpoint: URL?
    /// `jwks_uri`: the provider's JWK Set (REQUIRED by OIDC).
    public var jwksURI: URL?
    /// `registration_endpoint` (dynamic client registration).
    public var registrationEndpoint: URL?
    /// `scopes_supported`.
    public var scopesSupported: [String]?
    /// `response_types_supported` (REQUIRED).
    public var responseTypesSupported: [String]?
    /// `response_modes_supported`.
    public var responseModesSupported: [String]?
    /// `grant_types_supported`.
    public var grantTypesSupported: [String]?
    /// `acr_values_supported`.
    public var acrValuesSupported: [String]?
    /// `subject_types_supported` (REQUIRED by OIDC).
    public var subjectTypesSupported: [String]?
    /// `id_token_signing_alg_values_supported` (REQUIRED by OIDC).
    public var idTokenSigningAlgValuesSupported: [String]?
    /// `id_token_encryption_alg_values_supported`.
    public var idTokenEncryptionAlgValuesSupported: [String]?
    /// `id_token_encryption_enc_values_supported`.
    public var idTokenEncryptionEncValuesSupported: [String]?
    /// `userinfo_signing_alg_values_supported`.
    public var userinfoSigningAlgValuesSupported: [String]?
    /// `userinfo_encryption_alg_values_supported`.
    public var userinfoEncryptionAlgValuesSupported: [String]?
    /// `userinfo_encryption_enc_values_supported`.
    public var userinfoEncryptionEncValuesSupported: [String]?
    /// `request_object_signing_alg_values_supported`.
    public var requestObjectSigningAlgValuesSupported: [String]?
    /// `request_object_encryption_alg_values_supported`.
    public var requestObjectEncryptionAlgValuesSupported: [String]?
    /// `request_object_encryption_enc_values_supported`.
    public var requestObjectEncryptionEncValuesSupported: [String]?
    /// `token_endpoint_auth_methods_supported`.
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// `token_endpoint_auth_signing_alg_values_supported`.
    public var tokenEndpointAuthSigningAlgValuesSupported: [String]?
    /// `display_values_supported`.
    public var displayValuesSupported: [String]?
    /// `claim_types_supported`.
    public var claimTypesSupported: [String]?
    /// `claims_supported`.
    public var claimsSupported: [String]?
    /// `service_documentation`.
    public var serviceDocumentation: URL?
    /// `claims_locales_supported`.
    public var claimsLocalesSupported: [String]?
    /// `ui_locales_supported`.
    public var uiLocalesSupported: [String]?
    /// `claims_parameter_supported` (default false).
    public var claimsParameterSupported: Bool?
    /// `request_parameter_supported` (default false).
    public var requestParameterSupported: Bool?
    /// `request_uri_parameter_supported` (default true).
    public var requestURIParameterSupported: Bool?
    /// `require_request_uri_registration` (default false).
    public var requireRequestURIRegistration: Bool?
    /// `op_policy_uri`.
    public var opPolicyURI: URL?
    /// `op_tos_uri`.
    public var opTosURI: URL?
    /// `revocation_endpoint` (RFC 7009, RFC 8414).
    public var revocationEndpoint: URL?
    /// `revocation_endpoint_auth_methods_supported` (RFC 8414).
    public var revocationEndpointAuthMethodsSupported: [String]?
    /// `revocation_endpoint_auth_signing_alg_values_supported` (RFC 8414).
    public var revocationEndpointAuthSigningAlgValuesSupported: [String]?
    /// `introspection_endpoint` (RFC 7662, RFC 8414).
    public var introspectionEndpoint: URL?
    /// `introspection_endpoint_auth_methods_supported` (RFC 8414).
    public var introspectionEndpointAuthMethodsSupported: [String]?
    /// `introspection_endpoint_auth_signing_alg_values_supported` (RFC 8414).
    public var introspectionEndpointAuthSigningAlgValuesSupported: [String]?
    /// `code_challenge_methods_supported` (RFC 8414, PKCE).
    public var codeChallengeMethodsSupported: [String]?
    /// `signed_metadata`: a JWT of signed metadata (RFC 8414 §2.1), not verified here.
    public var signedMetadata: String?
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    public var authorizationResponseIssParameterSupported: Bool?
    /// `end_session_endpoint` (OIDC RP-Initiated Logout).
    public var endSessionEndpoint: URL?
    /// `check_session_iframe` (OIDC Session Management).
    public var checkSessionIframe: URL?
    /// `frontchannel_logout_supported` (OIDC Front-Channel Logout).
    public var frontchannelLogoutSupported: Bool?
    /// `frontchannel_logout_session_supported`.
    public var frontchannelLogoutSessionSupported: Bool?
    /// `backchannel_logout_supported` (OIDC Back-Channel Logout).
    public var backchannelLogoutSupported: Bool?
    /// `backchannel_logout_session_supported`.
    public var backchannelLogoutSessionSupported: Bool?
    /// `pushed_authorization_request_endpoint` (RFC 9126).
    public var pushedAuthorizationRequestEndpoint: URL?
    /// `require_pushed_authorization_requests` (RFC 9126).
    public var requirePushedAuthorizationRequests: Bool?
    /// `device_authorization_endpoint` (RFC 8628).
    public var deviceAuthorizationEndpoint: URL?
    /// `backchannel_authentication_endpoint` (OpenID Connect CIBA Core 1.0 §4).
    public var backchannelAuthenticationEndpoint: URL?
    /// `backchannel_token_delivery_modes_supported` (CIBA: `poll`, `ping`, `push`).
    public var backchannelTokenDeliveryModesSupported: [String]?
    /// `backchannel_user_code_parameter_supported` (CIBA).
    public var backchannelUserCodeParameterSupported: Bool?
    /// `tls_client_certificate_bound_access_tokens` (RFC 8705).
    public var tlsClientCertificateBoundAccessTokens: Bool?
    /// `mtls_endpoint_aliases` (RFC 8705).
    public var mtlsEndpointAliases: [String: String]?
    /// `dpop_signing_alg_values_supported` (RFC 9449).
    public var dpopSigningAlgValuesSupported: [String]?
    /// `require_signed_request_object` (RFC 9101).
    public var requireSignedRequestObject: Bool?
    /// `authorization_details_types_supported` (RFC 9396).
    public var authorizationDetailsTypesSupported: [String]?
    /// `prompt_values_supported` (OIDC Prompt Create).
    public var promptValuesSupported: [String]?
    /// Members this type does not know, as parsed (in document order when read with ``init(jsonBytes:)``).
    public var additionalFields: JSONObject

    /// Metadata with only an issuer; set the other fields as needed.
    public init(issuer: String) {
        self.issuer = issuer
        self.authorizationEndpoint = nil
        self.tokenEndpoint = nil
        self.userinfoEndpoint = nil
        self.jwksURI = nil
        self.registrationEndpoint = nil
        self.scopesSupported = nil
        self.responseTypesSupported = nil
        self.responseModesSupported = nil
        self.grantTypesSupported = nil
        self.acrValuesSupported = nil
        self.subjectTypesSupported = nil
        self.idTokenSigningAlgValuesSupported = nil
        self.idTokenEncryptionAlgValuesSupported = nil
        self.idTokenEncryptionEncValuesSupported = nil
        self.userinfoSigningAlgValuesSupported = nil
        self.userinfoEncryptionAlgValuesSupported = nil
        self.userinfoEncryptionEncValuesSupported = nil
        self.requestObjectSigningAlgValuesSupported = nil
        self.requestObjectEncryptionAlgValuesSupported = nil
        self.requestObjectEncryptionEncValuesSupported = nil
        self.tokenEndpointAuthMethodsSupported = nil
        self.tokenEndpointAuthSigningAlgValuesSupported = nil
        self.displayValuesSupported = nil
        self.claimTypesSupported = nil
        self.claimsSupported = nil
        self.serviceDocumentation = nil
        self.claimsLocalesSupported = nil
        self.uiLocalesSupported = nil
        self.claimsParameterSupported = nil
        self.requestParameterSupported = nil
        self.requestURIParameterSupported = nil
        self.requireRequestURIRegistration = nil
        self.opPolicyURI = nil
        self.opTosURI = nil
        self.revocationEndpoint = nil
        self.revocationEndpointAuthMethodsSupported = nil
        self.revocationEndpointAuthSigningAlgValuesSupported = nil
        self.introspectionEndpoint = nil
        self.introspectionEndpointAuthMethodsSupported = nil
        self.introspectionEndpointAuthSigningAlgValuesSupported = nil
        self.codeChallengeMethodsSupported = nil
        self.signedMetadata = nil
        self.authorizationResponseIssParameterSupported = nil
        self.endSessionEndpoint = nil
        self.checkSessionIframe = nil
        self.frontchannelLogoutSupported = nil
        self.frontchannelLogoutSessionSupported = nil
        self.backchannelLogoutSupported = nil
        self.backchannelLogoutSessionSupported = nil
        self.pushedAuthorizationRequestEndpoint = nil
        self.requirePushedAuthorizationRequests = nil
        self.deviceAuthorizationEndpoint = nil
        self.backchannelAuthenticationEndpoint = nil
        self.backchannelTokenDeliveryModesSupported = nil
        self.backchannelUserCodeParameterSupported = nil
        self.tlsClientCertificateBoundAccessTokens = nil
        self.mtlsEndpointAliases = nil
        self.dpopSigningAlgValuesSupported = nil
        self.requireSignedRequestObject = nil
        self.authorizationDetailsTypesSupported = nil
        self.promptValuesSupported = nil
        self.additionalFields = JSONObject()
    }
}
