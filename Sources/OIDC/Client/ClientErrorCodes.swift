extension OIDCError.Code {
    /// The token endpoint returned a `token_type` the client is not configured to use (RFC 6749 §7.1):
    /// only `Bearer` (compared case-insensitively) unless ``OIDCClient/Configuration/acceptedTokenTypes`` says otherwise.
    public static let unsupportedTokenType = OIDCError.Code(rawValue: "unsupported_token_type")
    /// A login or refresh response that must carry an ID Token has none (OpenID Connect Core §3.1.3.3).
    public static let missingIDToken = OIDCError.Code(rawValue: "missing_id_token")
    /// The provider's metadata does not advertise the endpoint a call needs (e.g. `end_session_endpoint`).
    public static let endpointNotAdvertised = OIDCError.Code(rawValue: "endpoint_not_advertised")
    /// A pending login was started by another client or for another issuer than the one finishing it.
    public static let pendingLoginMismatch = OIDCError.Code(rawValue: "pending_login_mismatch")
    /// The front-channel and token-endpoint ID Tokens of a hybrid login name different issuers or subjects
    /// (OpenID Connect Core §3.3.3.6).
    public static let hybridIDTokenMismatch = OIDCError.Code(rawValue: "hybrid_id_token_mismatch")
}
