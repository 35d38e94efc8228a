import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON form of ``ProviderMetadata``: the registered member names, decoding (unknown members kept
/// in ``ProviderMetadata/additionalFields``) and encoding.
extension ProviderMetadata {
    /// The JSON member names of the registered fields.
    package static let registeredFieldNames: Set<String> = Set(CodingKeys.allCases.map(\.rawValue))

    package enum CodingKeys: String, CodingKey, CaseIterable {
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
        introspectionEndpointAuthSigningAlgValuesSupported = try container.decodeIfPresent(
            [String].self, forKey: .introspectionEndpointAuthSigningAlgValuesSupported)
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
