import JOSE

extension OIDCError.Code {
    /// A value given to build an authorization request is unacceptable (empty client id,
    /// `prompt=none` combined with other prompts, negative `max_age`, a response mode the
    /// response type forbids, ...).
    public static let invalidRequestParameter = OIDCError.Code(rawValue: "invalid_request_parameter")
    /// An additional parameter, or a query item already on the base URL, has the name of a
    /// parameter the request sets itself.
    public static let parameterCollision = OIDCError.Code(rawValue: "parameter_collision")
    /// A parameter value is longer than the limit the caller stated for it.
    public static let parameterTooLong = OIDCError.Code(rawValue: "parameter_too_long")
    /// The response type returns an ID Token from the authorization endpoint but the request has no nonce.
    public static let nonceRequired = OIDCError.Code(rawValue: "nonce_required")
    /// The authorization endpoint (or app link) cannot carry an authorization request.
    public static let invalidAuthorizationEndpoint = OIDCError.Code(rawValue: "invalid_authorization_endpoint")
    /// The redirect URI is not an absolute URI without a fragment.
    public static let invalidRedirectURI = OIDCError.Code(rawValue: "invalid_redirect_uri")
    /// The `claims` request parameter is malformed.
    public static let invalidClaimsRequest = OIDCError.Code(rawValue: "invalid_claims_request")
    /// A PKCE code verifier is not 43–128 characters of the RFC 7636 alphabet.
    public static let invalidCodeVerifier = OIDCError.Code(rawValue: "invalid_code_verifier")
    /// A `state` or `nonce` value is empty or has forbidden characters.
    public static let invalidSecretValue = OIDCError.Code(rawValue: "invalid_secret_value")
    /// The random generator failed to produce a state, nonce or code verifier.
    public static let randomGenerationFailed = OIDCError.Code(rawValue: "random_generation_failed")
    /// Text is not valid percent-encoded UTF-8.
    public static let invalidPercentEncoding = OIDCError.Code(rawValue: "invalid_percent_encoding")

    /// The redirect's `state` is missing or differs from the request's.
    public static let stateMismatch = OIDCError.Code(rawValue: "state_mismatch")
    /// The redirect's `iss` (RFC 9207) is missing where required or differs from the issuer.
    /// (Distinct from ``issuerMismatch``, the ID Token's `iss` claim.)
    public static let responseIssuerMismatch = OIDCError.Code(rawValue: "response_issuer_mismatch")
    /// The redirect URL's scheme, host, port or path differs from the request's redirect URI.
    public static let redirectURIMismatch = OIDCError.Code(rawValue: "redirect_uri_mismatch")
    /// The response arrived in another place than the response mode says (query, fragment, form post).
    public static let responseModeMismatch = OIDCError.Code(rawValue: "response_mode_mismatch")
    /// A parameter occurs more than once in the authorization response.
    public static let duplicateResponseParameter = OIDCError.Code(rawValue: "duplicate_parameter")
    /// A parameter the response type requires is absent from the authorization response.
    public static let missingResponseParameter = OIDCError.Code(rawValue: "missing_parameter")
    /// A response parameter has a malformed value, or is one the request did not ask for.
    public static let invalidResponseParameter = OIDCError.Code(rawValue: "invalid_response_parameter")
    /// The response carries both an `error` and a result (`code`, `id_token` or `access_token`).
    public static let ambiguousResponse = OIDCError.Code(rawValue: "ambiguous_response")
    /// The provider answered with an OAuth error; see ``OIDCError/oauthError``.
    public static let authorizationError = OIDCError.Code(rawValue: "authorization_error")
}
