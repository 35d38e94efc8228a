import JOSE

/// Error codes of the JWK Set cache.
extension OIDCError.Code {
    /// The JWK Set request got no HTTP response.
    public static let jwksTransportFailed = OIDCError.Code(rawValue: "jwks_transport_failed")
    /// The JWK Set was answered with a status other than 200.
    public static let jwksHTTPStatus = OIDCError.Code(rawValue: "jwks_http_status")
    /// The JWK Set document is not a JSON object with a `keys` array.
    public static let jwksInvalidDocument = OIDCError.Code(rawValue: "jwks_invalid_document")
    /// The provider publishes no `jwks_uri`.
    public static let jwksURIMissing = OIDCError.Code(rawValue: "jwks_uri_missing")
}
