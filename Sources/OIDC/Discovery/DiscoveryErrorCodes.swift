import JOSE

/// Error codes of provider discovery (OpenID Connect Discovery 1.0, RFC 8414).
extension OIDCError.Code {
    /// The issuer (or an endpoint) is not an absolute URL this toolkit accepts.
    public static let invalidIssuerURL = OIDCError.Code(rawValue: "invalid_issuer_url")
    /// `http` for a host that is not a loopback address: only `https` is allowed.
    public static let insecureURL = OIDCError.Code(rawValue: "insecure_url")
    /// The discovery request got no HTTP response.
    public static let discoveryTransportFailed = OIDCError.Code(rawValue: "discovery_transport_failed")
    /// The discovery document was answered with a status other than 200.
    public static let discoveryHTTPStatus = OIDCError.Code(rawValue: "discovery_http_status")
    /// The discovery document is not a JSON object, or a field has the wrong type.
    public static let discoveryInvalidDocument = OIDCError.Code(rawValue: "discovery_invalid_document")
    /// A required metadata field is missing.
    public static let discoveryMissingField = OIDCError.Code(rawValue: "discovery_missing_field")
    /// The document's `issuer` is not exactly the requested issuer.
    public static let discoveryIssuerMismatch = OIDCError.Code(rawValue: "discovery_issuer_mismatch")
}
