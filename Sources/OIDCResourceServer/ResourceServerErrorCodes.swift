import OIDC

extension OIDCError.Code {
    /// The JWT's `typ` header is not the one its kind requires (`at+jwt` for RFC 9068 access
    /// tokens, `logout+jwt` for logout tokens, `token-introspection+jwt` for introspection answers),
    /// or an introspection answer's `token_type` is not an access token's
    /// (``TokenIntrospector/accessTokenTypes``).
    public static let unexpectedTokenType = OIDCError.Code(rawValue: "unexpected_token_type")
    /// The token is not a well-formed signed JWT (segments, Base64URL, JSON, header).
    public static let malformedJWT = OIDCError.Code(rawValue: "malformed_jwt")
    /// A claim an RFC 9068 access token must carry is missing (`member` is in the reason).
    public static let missingAccessTokenClaim = OIDCError.Code(rawValue: "missing_access_token_claim")
    /// A claim a back-channel logout token must carry (`iat`, `jti`, `events`) is missing
    /// (the claim is named in the reason); never reported as an access-token claim.
    public static let missingLogoutTokenClaim = OIDCError.Code(rawValue: "missing_logout_token_claim")
    /// The access token lacks a scope the resource requires (RFC 6750 `insufficient_scope`).
    public static let insufficientScope = OIDCError.Code(rawValue: "insufficient_scope")
    /// The introspection endpoint said the token is not active (RFC 7662 `active: false`).
    public static let inactiveToken = OIDCError.Code(rawValue: "inactive_token")
    /// The introspection answer is not a usable RFC 7662 response (or its JWT form does not verify).
    public static let invalidIntrospectionResponse = OIDCError.Code(rawValue: "invalid_introspection_response")
    /// The introspection endpoint answered with plain JSON although a signed JWT answer (RFC 9701)
    /// is configured as required (``TokenIntrospector/JWTResponse/Requirement/required``).
    public static let unsignedIntrospectionResponse = OIDCError.Code(rawValue: "unsigned_introspection_response")
    /// The request carries no bearer token (RFC 6750 §3.1: no error code in the challenge).
    public static let missingBearerToken = OIDCError.Code(rawValue: "missing_bearer_token")
    /// The request carries the token in a malformed way, or in more than one place (RFC 6750 `invalid_request`).
    public static let invalidBearerRequest = OIDCError.Code(rawValue: "invalid_bearer_request")
    /// A back-channel logout token breaks a rule of Back-Channel Logout 1.0 §2.6 (the reason names which).
    public static let invalidLogoutToken = OIDCError.Code(rawValue: "invalid_logout_token")
    /// A logout token's `jti` was already seen within the replay window.
    public static let replayedLogoutToken = OIDCError.Code(rawValue: "replayed_logout_token")
    /// The back-channel logout request body is not a form with exactly one `logout_token`.
    public static let invalidLogoutRequest = OIDCError.Code(rawValue: "invalid_logout_request")
}
