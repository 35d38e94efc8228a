extension OIDCError.Code {
    /// The token, userinfo or revocation endpoint answered with an OAuth error (`oauthError` says which).
    public static let oauthError = OIDCError.Code(rawValue: "oauth_error")
    /// The endpoint answered with a body that is neither the expected JSON nor an OAuth error (HTML page, garbage).
    public static let invalidEndpointResponse = OIDCError.Code(rawValue: "invalid_endpoint_response")
    /// The endpoint answered with an empty body where content was required.
    public static let emptyEndpointResponse = OIDCError.Code(rawValue: "empty_endpoint_response")
    /// The endpoint answered with a 5xx status and no OAuth error.
    public static let endpointServerError = OIDCError.Code(rawValue: "endpoint_server_error")
    /// The endpoint answered with an unexpected status and no OAuth error.
    public static let unexpectedEndpointStatus = OIDCError.Code(rawValue: "unexpected_endpoint_status")
    /// The endpoint answered with a redirect; token and userinfo requests never follow one.
    public static let unexpectedRedirect = OIDCError.Code(rawValue: "unexpected_redirect")
    /// No HTTP response: timeout, connection failure (`transportError` says which).
    public static let transport = OIDCError.Code(rawValue: "transport")
    /// The access token was refused (401 with a Bearer challenge) at a protected resource or userinfo.
    public static let invalidToken = OIDCError.Code(rawValue: "invalid_token")
    /// The token response lacks a required member or has one of the wrong type.
    public static let invalidTokenResponse = OIDCError.Code(rawValue: "invalid_token_response")
    /// UserInfo's `sub` differs from the ID Token's (OpenID Connect Core §5.3.2).
    public static let userInfoSubjectMismatch = OIDCError.Code(rawValue: "userinfo_subject_mismatch")
    /// A token request could not be built (e.g. an extra parameter would override a standard one).
    public static let invalidTokenRequest = OIDCError.Code(rawValue: "invalid_token_request")
}
