extension OIDCError.Code {
    /// The pushed authorization request endpoint answered without a usable `request_uri` / `expires_in` (RFC 9126 §2.2).
    public static let invalidPushedAuthorizationResponse = OIDCError.Code(rawValue: "invalid_pushed_authorization_response")
    /// The provider requires pushed authorization requests and a plain front-channel request was about to be made.
    public static let pushedAuthorizationRequired = OIDCError.Code(rawValue: "pushed_authorization_required")
    /// A request object could not be built or signed (RFC 9101).
    public static let requestObjectFailed = OIDCError.Code(rawValue: "request_object_failed")
}
