#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

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

    /// The JSON member names of the registered fields.
    public static let registeredFieldNames: Set<String> = Set(CodingKeys.allCases.map(\.rawValue))

    enum CodingKeys: String, CodingKey, CaseIterable {
        case issuer = "issuer"
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case registrationEndpoint = "registration_endpoint"
        case scopesSupported = "scopes_supported"
        case responseTypesSupported = "response_types_supported"
        case responseModesSupported = "response_modes_supported"
        case grantTypesSupported = "grant_types_supported"
        case acrValuesSupported = "acr_values_supported"
        case subjectTypesSupported = "subject_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case idTokenEncryptionAlgValuesSupported = "id_token_encryption_alg_values_supported"
        case idTokenEncryptionEncValuesSupported = "id_token_encryption_enc_values_supported"
        case userinfoSigningAlgValuesSupported = "userinfo_signing_alg_values_supported"
        case userinfoEncryptionAlgValuesSupported = "userinfo_encryption_alg_values_supported"
        case userinfoEncryptionEncValuesSupported = "userinfo_encryption_enc_values_supported"
        case requestObjectSigningAlgValuesSupported = "request_object_signing_alg_values_supported"
        case requestObjectEncryptionAlgValuesSupported = "request_object_encryption_alg_values_supported"
        case requestObjectEncryptionEncValuesSupported = "request_object_encryption_enc_values_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case tokenEndpointAuthSigningAlgValuesSupported = "token_endpoint_auth_signing_alg_values_supported"
        case displayValuesSupported = "display_values_supported"
        case claimTypesSupported = "claim_types_supported"
        case claimsSupported = "claims_supported"
        case serviceDocumentation = "service_documentation"
        case claimsLocalesSupported = "claims_locales_supported"
        case uiLocalesSupported = "ui_locales_supported"
        case claimsParameterSupported = "claims_parameter_supported"
        case requestParameterSupported = "request_parameter_supported"
        case requestURIParameterSupported = "request_uri_parameter_supported"
        case requireRequestURIRegistration = "require_request_uri_registration"
        case opPolicyURI = "op_policy_uri"
        case opTosURI = "op_tos_uri"
        case revocationEndpoint = "revocation_endpoint"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case revocationEndpointAuthSigningAlgValuesSupported = "revocation_endpoint_auth_signing_alg_values_supported"
        case introspectionEndpoint = "introspection_endpoint"
        case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
        case introspectionEndpointAuthSigningAlgValuesSupported = "introspection_endpoint_auth_signing_alg_values_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case signedMetadata = "signed_metadata"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case endSessionEndpoint = "end_session_endpoint"
        case checkSessionIframe = "check_session_iframe"
        case frontchannelLogoutSupported = "frontchannel_logout_supported"
        case frontchannelLogoutSessionSupported = "frontchannel_logout_session_supported"
        case backchannelLogoutSupported = "backchannel_logout_supported"
        case backchannelLogoutSessionSupported = "backchannel_logout_session_supported"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case backchannelAuthenticationEndpoint = "backchannel_authentication_endpoint"
        case backchannelTokenDeliveryModesSupported = "backchannel_token_delivery_modes_supported"
        case backchannelUserCodeParameterSupported = "backchannel_user_code_parameter_supported"
        case tlsClientCertificateBoundAccessTokens = "tls_client_certificate_bound_access_tokens"
        case mtlsEndpointAliases = "mtls_endpoint_aliases"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
        case requireSignedRequestObject = "require_signed_request_object"
        case authorizationDetailsTypesSupported = "authorization_details_types_supported"
        case promptValuesSupported = "prompt_values_supported"
    }

    /// Decodes the registered fields and keeps every other member in ``additionalFields``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try container.decode(String.self, forKey: .issuer)
        authorizationEndpoint = try container.decodeIfPresent(URL.self, forKey: .authorizationEndpoint)
        tokenEndpoint = try container.decodeIfPresent(URL.self, forKey: .tokenEndpoint)
        userinfoEndpoint = try container.decodeIfPresent(URL.self, forKey: .userinfoEndpoint)
        jwksURI = try container.decodeIfPresent(URL.self, forKey: .jwksURI)
        registrationEndpoint = try container.decodeIfPresent(URL.self, forKey: .registrationEndpoint)
        scopesSupported = try container.decodeIfPresent([String].self, forKey: .scopesSupported)
        responseTypesSupported = try container.decodeIfPresent([String].self, forKey: .responseTypesSupported)
        responseModesSupported = try container.decodeIfPresent([String].self, forKey: .responseModesSupported)
        grantTypesSupported = try container.decodeIfPresent([String].self, forKey: .grantTypesSupported)
        acrValuesSupported = try container.decodeIfPresent([String].self, forKey: .acrValuesSupported)
        subjectTypesSupported = try container.decodeIfPresent([String].self, forKey: .subjectTypesSupported)
        idTokenSigningAlgValuesSupported = try container.decodeIfPresent([String].self, forKey: .idTokenSigningAlgValuesSupported)
        idTokenEncryptionAlgValuesSupported = try container.decodeIfPresent([String].self, forKey: .idTokenEncryptionAlgValuesSupported)
        idTokenEncryptionEncValuesSupported = try container.decodeIfPresent([String].self, forKey: .idTokenEncryptionEncValuesSupported)
        userinfoSigningAlgValuesSupported = try container.decodeIfPresent([String].self, forKey: .userinfoSigningAlgValuesSupported)
        userinfoEncryptionAlgValuesSupported = try container.decodeIfPresent([String].self, forKey: .userinfoEncryptionAlgValuesSupported)
        userinfoEncryptionEncValuesSupported = try container.decodeIfPresent([String].self, forKey: .userinfoEncryptionEncValuesSupported)
        requestObjectSigningAlgValuesSupported = try container.decodeIfPresent([String].self, forKey: .requestObjectSigningAlgValuesSupported)
        requestObjectEncryptionAlgValuesSupported = try container.decodeIfPresent([String].self, forKey: .requestObjectEncryptionAlgValuesSupported)
        requestObjectEncryptionEncValuesSupported = try container.decodeIfPresent([String].self, forKey: .requestObjectEncryptionEncValuesSupported)
        tokenEndpointAuthMethodsSupported = try container.decodeIfPresent([String].self, forKey: .tokenEndpointAuthMethodsSupported)
        tokenEndpointAuthSigningAlgValuesSupported = try container.decodeIfPresent([String].self, forKey: .tokenEndpointAuthSigningAlgValuesSupported)
        displayValuesSupported = try container.decodeIfPresent([String].self, forKey: .displayValuesSupported)
        claimTypesSupported = try container.decodeIfPresent([String].self, forKey: .claimTypesSupported)
        claimsSupported = try container.decodeIfPresent([String].self, forKey: .claimsSupported)
        serviceDocumentation = try container.decodeIfPresent(URL.self, forKey: .serviceDocumentation)
        claimsLocalesSupported = try container.decodeIfPresent([String].self, forKey: .claimsLocalesSupported)
        uiLocalesSupported = try container.decodeIfPresent([String].self, forKey: .uiLocalesSupported)
        claimsParameterSupported = try container.decodeIfPresent(Bool.self, forKey: .claimsParameterSupported)
        requestParameterSupported = try container.decodeIfPresent(Bool.self, forKey: .requestParameterSupported)
        requestURIParameterSupported = try container.decodeIfPresent(Bool.self, forKey: .requestURIParameterSupported)
        requireRequestURIRegistration = try container.decodeIfPresent(Bool.self, forKey: .requireRequestURIRegistration)
        opPolicyURI = try container.decodeIfPresent(URL.self, forKey: .opPolicyURI)
        opTosURI = try container.decodeIfPresent(URL.self, forKey: .opTosURI)
        revocationEndpoint = try container.decodeIfPresent(URL.self, forKey: .revocationEndpoint)
        revocationEndpointAuthMethodsSupported = try container.decodeIfPresent([String].self, forKey: .revocationEndpointAuthMethodsSupported)
        revocationEndpointAuthSigningAlgValuesSupported = try container.decodeIfPresent([String].self, forKey: .revocationEndpointAuthSigningAlgValuesSupported)
        introspectionEndpoint = try container.decodeIfPresent(URL.self, forKey: .introspectionEndpoint)
        introspectionEndpointAuthMethodsSupported = try container.decodeIfPresent([String].self, forKey: .introspectionEndpointAuthMethodsSupported)
        introspectionEndpointAuthSigningAlgValuesSupported = try container.decodeIfPresent([String].self, forKey: .introspectionEndpointAuthSigningAlgValuesSupported)
        codeChallengeMethodsSupported = try container.decodeIfPresent([String].self, forKey: .codeChallengeMethodsSupported)
        signedMetadata = try container.decodeIfPresent(String.self, forKey: .signedMetadata)
        authorizationResponseIssParameterSupported = try container.decodeIfPresent(Bool.self, forKey: .authorizationResponseIssParameterSupported)
        endSessionEndpoint = try container.decodeIfPresent(URL.self, forKey: .endSessionEndpoint)
        checkSessionIframe = try container.decodeIfPresent(URL.self, forKey: .checkSessionIframe)
        frontchannelLogoutSupported = try container.decodeIfPresent(Bool.self, forKey: .frontchannelLogoutSupported)
        frontchannelLogoutSessionSupported = try container.decodeIfPresent(Bool.self, forKey: .frontchannelLogoutSessionSupported)
        backchannelLogoutSupported = try container.decodeIfPresent(Bool.self, forKey: .backchannelLogoutSupported)
        backchannelLogoutSessionSupported = try container.decodeIfPresent(Bool.self, forKey: .backchannelLogoutSessionSupported)
        pushedAuthorizationRequestEndpoint = try container.decodeIfPresent(URL.self, forKey: .pushedAuthorizationRequestEndpoint)
        requirePushedAuthorizationRequests = try container.decodeIfPresent(Bool.self, forKey: .requirePushedAuthorizationRequests)
        deviceAuthorizationEndpoint = try container.decodeIfPresent(URL.self, forKey: .deviceAuthorizationEndpoint)
        backchannelAuthenticationEndpoint = try container.decodeIfPresent(URL.self, forKey: .backchannelAuthenticationEndpoint)
        backchannelTokenDeliveryModesSupported = try container.decodeIfPresent([String].self, forKey: .backchannelTokenDeliveryModesSupported)
        backchannelUserCodeParameterSupported = try container.decodeIfPresent(Bool.self, forKey: .backchannelUserCodeParameterSupported)
        tlsClientCertificateBoundAccessTokens = try container.decodeIfPresent(Bool.self, forKey: .tlsClientCertificateBoundAccessTokens)
        mtlsEndpointAliases = try container.decodeIfPresent([String: String].self, forKey: .mtlsEndpointAliases)
        dpopSigningAlgValuesSupported = try container.decodeIfPresent([String].self, forKey: .dpopSigningAlgValuesSupported)
        requireSignedRequestObject = try container.decodeIfPresent(Bool.self, forKey: .requireSignedRequestObject)
        authorizationDetailsTypesSupported = try container.decodeIfPresent([String].self, forKey: .authorizationDetailsTypesSupported)
        promptValuesSupported = try container.decodeIfPresent([String].self, forKey: .promptValuesSupported)
        let all = try decoder.container(keyedBy: AnyJSONKey.self)
        var extra = JSONObject()
        for key in all.allKeys.sorted(by: { $0.stringValue < $1.stringValue })
        where !Self.registeredFieldNames.contains(key.stringValue) {
            extra[key.stringValue] = try all.decode(AnyJSON.self, forKey: key).value
        }
        additionalFields = extra
    }

    /// Encodes the registered fields that are set, then ``additionalFields``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(issuer, forKey: .issuer)
        try container.encodeIfPresent(authorizationEndpoint, forKey: .authorizationEndpoint)
        try container.encodeIfPresent(tokenEndpoint, forKey: .tokenEndpoint)
        try container.encodeIfPresent(userinfoEndpoint, forKey: .userinfoEndpoint)
        try container.encodeIfPresent(jwksURI, forKey: .jwksURI)
        try container.encodeIfPresent(registrationEndpoint, forKey: .registrationEndpoint)
        try container.encodeIfPresent(scopesSupported, forKey: .scopesSupported)
        try container.encodeIfPresent(responseTypesSupported, forKey: .responseTypesSupported)
        try container.encodeIfPresent(responseModesSupported, forKey: .responseModesSupported)
        try container.encodeIfPresent(grantTypesSupported, forKey: .grantTypesSupported)
        try container.encodeIfPresent(acrValuesSupported, forKey: .acrValuesSupported)
        try container.encodeIfPresent(subjectTypesSupported, forKey: .subjectTypesSupported)
        try container.encodeIfPresent(idTokenSigningAlgValuesSupported, forKey: .idTokenSigningAlgValuesSupported)
        try container.encodeIfPresent(idTokenEncryptionAlgValuesSupported, forKey: .idTokenEncryptionAlgValuesSupported)
        try container.encodeIfPresent(idTokenEncryptionEncValuesSupported, forKey: .idTokenEncryptionEncValuesSupported)
        try container.encodeIfPresent(userinfoSigningAlgValuesSupported, forKey: .userinfoSigningAlgValuesSupported)
        try container.encodeIfPresent(userinfoEncryptionAlgValuesSupported, forKey: .userinfoEncryptionAlgValuesSupported)
        try container.encodeIfPresent(userinfoEncryptionEncValuesSupported, forKey: .userinfoEncryptionEncValuesSupported)
        try container.encodeIfPresent(requestObjectSigningAlgValuesSupported, forKey: .requestObjectSigningAlgValuesSupported)
        try container.encodeIfPresent(requestObjectEncryptionAlgValuesSupported, forKey: .requestObjectEncryptionAlgValuesSupported)
        try container.encodeIfPresent(requestObjectEncryptionEncValuesSupported, forKey: .requestObjectEncryptionEncValuesSupported)
        try container.encodeIfPresent(tokenEndpointAuthMethodsSupported, forKey: .tokenEndpointAuthMethodsSupported)
        try container.encodeIfPresent(tokenEndpointAuthSigningAlgValuesSupported, forKey: .tokenEndpointAuthSigningAlgValuesSupported)
        try container.encodeIfPresent(displayValuesSupported, forKey: .displayValuesSupported)
        try container.encodeIfPresent(claimTypesSupported, forKey: .claimTypesSupported)
        try container.encodeIfPresent(claimsSupported, forKey: .claimsSupported)
        try container.encodeIfPresent(serviceDocumentation, forKey: .serviceDocumentation)
        try container.encodeIfPresent(claimsLocalesSupported, forKey: .claimsLocalesSupported)
        try container.encodeIfPresent(uiLocalesSupported, forKey: .uiLocalesSupported)
        try container.encodeIfPresent(claimsParameterSupported, forKey: .claimsParameterSupported)
        try container.encodeIfPresent(requestParameterSupported, forKey: .requestParameterSupported)
        try container.encodeIfPresent(requestURIParameterSupported, forKey: .requestURIParameterSupported)
        try container.encodeIfPresent(requireRequestURIRegistration, forKey: .requireRequestURIRegistration)
        try container.encodeIfPresent(opPolicyURI, forKey: .opPolicyURI)
        try container.encodeIfPresent(opTosURI, forKey: .opTosURI)
        try container.encodeIfPresent(revocationEndpoint, forKey: .revocationEndpoint)
        try container.encodeIfPresent(revocationEndpointAuthMethodsSupported, forKey: .revocationEndpointAuthMethodsSupported)
        try container.encodeIfPresent(revocationEndpointAuthSigningAlgValuesSupported, forKey: .revocationEndpointAuthSigningAlgValuesSupported)
        try container.encodeIfPresent(introspectionEndpoint, forKey: .introspectionEndpoint)
        try container.encodeIfPresent(introspectionEndpointAuthMethodsSupported, forKey: .introspectionEndpointAuthMethodsSupported)
        try container.encodeIfPresent(introspectionEndpointAuthSigningAlgValuesSupported, forKey: .introspectionEndpointAuthSigningAlgValuesSupported)
        try container.encodeIfPresent(codeChallengeMethodsSupported, forKey: .codeChallengeMethodsSupported)
        try container.encodeIfPresent(signedMetadata, forKey: .signedMetadata)
        try container.encodeIfPresent(authorizationResponseIssParameterSupported, forKey: .authorizationResponseIssParameterSupported)
        try container.encodeIfPresent(endSessionEndpoint, forKey: .endSessionEndpoint)
        try container.encodeIfPresent(checkSessionIframe, forKey: .checkSessionIframe)
        try container.encodeIfPresent(frontchannelLogoutSupported, forKey: .frontchannelLogoutSupported)
        try container.encodeIfPresent(frontchannelLogoutSessionSupported, forKey: .frontchannelLogoutSessionSupported)
        try container.encodeIfPresent(backchannelLogoutSupported, forKey: .backchannelLogoutSupported)
        try container.encodeIfPresent(backchannelLogoutSessionSupported, forKey: .backchannelLogoutSessionSupported)
        try container.encodeIfPresent(pushedAuthorizationRequestEndpoint, forKey: .pushedAuthorizationRequestEndpoint)
        try container.encodeIfPresent(requirePushedAuthorizationRequests, forKey: .requirePushedAuthorizationRequests)
        try container.encodeIfPresent(deviceAuthorizationEndpoint, forKey: .deviceAuthorizationEndpoint)
        try container.encodeIfPresent(backchannelAuthenticationEndpoint, forKey: .backchannelAuthenticationEndpoint)
        try container.encodeIfPresent(backchannelTokenDeliveryModesSupported, forKey: .backchannelTokenDeliveryModesSupported)
        try container.encodeIfPresent(backchannelUserCodeParameterSupported, forKey: .backchannelUserCodeParameterSupported)
        try container.encodeIfPresent(tlsClientCertificateBoundAccessTokens, forKey: .tlsClientCertificateBoundAccessTokens)
        try container.encodeIfPresent(mtlsEndpointAliases, forKey: .mtlsEndpointAliases)
        try container.encodeIfPresent(dpopSigningAlgValuesSupported, forKey: .dpopSigningAlgValuesSupported)
        try container.encodeIfPresent(requireSignedRequestObject, forKey: .requireSignedRequestObject)
        try container.encodeIfPresent(authorizationDetailsTypesSupported, forKey: .authorizationDetailsTypesSupported)
        try container.encodeIfPresent(promptValuesSupported, forKey: .promptValuesSupported)
        var all = encoder.container(keyedBy: AnyJSONKey.self)
        for member in additionalFields where !Self.registeredFieldNames.contains(member.name) {
            try all.encode(AnyJSON(member.value), forKey: AnyJSONKey(member.name))
        }
    }
}
