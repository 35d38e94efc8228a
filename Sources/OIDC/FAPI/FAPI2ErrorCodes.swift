extension OIDCError.Code {
    /// FAPI 2.0: the authorization request is not pushed (PAR), or the provider has no PAR endpoint.
    public static let fapiPARRequired = OIDCError.Code(rawValue: "fapi_par_required")
    /// FAPI 2.0: the response type is not `code`, or the response mode puts the response in the fragment.
    public static let fapiResponseTypeNotAllowed = OIDCError.Code(rawValue: "fapi_response_type_not_allowed")
    /// FAPI 2.0: PKCE with S256 is not used.
    public static let fapiPKCERequired = OIDCError.Code(rawValue: "fapi_pkce_s256_required")
    /// FAPI 2.0: the provider does not send RFC 9207 `iss` in authorization responses.
    public static let fapiIssuerParameterRequired = OIDCError.Code(rawValue: "fapi_iss_parameter_required")
    /// FAPI 2.0: no sender constraint (DPoP) for the tokens.
    public static let fapiSenderConstraintRequired = OIDCError.Code(rawValue: "fapi_sender_constraint_required")
    /// FAPI 2.0: the client authentication is not private_key_jwt.
    public static let fapiClientAuthenticationNotAllowed = OIDCError.Code(rawValue: "fapi_client_authentication_not_allowed")
    /// FAPI 2.0: an algorithm (ID Token, client assertion, DPoP, request object) is not PS256, ES256 or EdDSA.
    public static let fapiAlgorithmNotAllowed = OIDCError.Code(rawValue: "fapi_algorithm_not_allowed")
    /// FAPI 2.0: the clock-skew tolerance exceeds the profile's limit.
    public static let fapiClockSkewTooLarge = OIDCError.Code(rawValue: "fapi_clock_skew_too_large")
}
