extension OIDCError.Code {
    /// The identifier given to WebFinger issuer discovery is not an `acct:` URI, an e-mail-like `user@host`, or an
    /// https URL (OpenID Connect Discovery §2.1; XRIs and other schemes are not supported).
    public static let webFingerInvalidIdentifier = OIDCError.Code(rawValue: "webfinger_invalid_identifier")
    /// No HTTP answer from `https://HOST/.well-known/webfinger`.
    public static let webFingerTransportFailed = OIDCError.Code(rawValue: "webfinger_transport_failed")
    /// The WebFinger answer is unusable: not HTTP 200, not a JSON object, `links` not an array.
    public static let webFingerInvalidResponse = OIDCError.Code(rawValue: "webfinger_invalid_response")
    /// The WebFinger answer names no issuer (no link with `rel` `http://openid.net/specs/connect/1.0/issuer`).
    public static let webFingerNoIssuer = OIDCError.Code(rawValue: "webfinger_no_issuer")
    /// The issuer the WebFinger answer names is not an https URL (refused even on a loopback host: OpenID Connect
    /// Discovery §3 requires https issuers).
    public static let webFingerInsecureIssuer = OIDCError.Code(rawValue: "webfinger_insecure_issuer")
    /// The WebFinger host, the issuer its answer names, or an endpoint of that issuer's discovery document is on a
    /// host the ``RemoteFetchPolicy`` refuses (internal address, reserved name, port other than 443); nothing was sent there.
    public static let webFingerHostRefused = OIDCError.Code(rawValue: "webfinger_host_refused")
}

extension ProviderEndpoint {
    /// `https://HOST/.well-known/webfinger` (RFC 7033), the issuer discovery query of OpenID Connect Discovery §2.
    public static let webFinger = ProviderEndpoint(rawValue: "webfinger")
}
