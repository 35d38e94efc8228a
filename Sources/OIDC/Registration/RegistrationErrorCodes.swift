extension OIDCError.Code {
    /// The provider refused a dynamic registration or a client management request (RFC 7591 §3.2.2,
    /// RFC 7592 §2): ``OIDCError/oauthError`` holds its error code (e.g. `invalid_redirect_uri`,
    /// `invalid_client_metadata`, `invalid_software_statement`, `unapproved_software_statement`,
    /// or `invalid_token` for a refused registration access token).
    public static let registrationRefused = OIDCError.Code(rawValue: "registration_refused")
    /// A registration or client management answer is unusable: not a JSON object, no `client_id`,
    /// a member of the wrong type, or another `client_id` than the one managed.
    public static let registrationInvalidResponse = OIDCError.Code(rawValue: "registration_invalid_response")
    /// No HTTP answer from the registration endpoint or `registration_client_uri`.
    public static let registrationTransportFailed = OIDCError.Code(rawValue: "registration_transport_failed")
    /// The provider publishes no `registration_endpoint`, or the registration has no
    /// `registration_client_uri` and `registration_access_token` to manage it with (RFC 7592).
    public static let registrationNotSupported = OIDCError.Code(rawValue: "registration_not_supported")
    /// The client metadata to register is unusable before anything is sent (e.g. a private key in
    /// `jwks`, no redirect URI for a client that logs users in).
    public static let invalidClientMetadata = OIDCError.Code(rawValue: "invalid_client_metadata")
}

extension OAuthErrorCode {
    /// `invalid_redirect_uri` (RFC 7591 §3.2.2): a redirect URI is refused.
    public static let invalidRedirectURI = OAuthErrorCode(rawValue: "invalid_redirect_uri")
    /// `invalid_client_metadata` (RFC 7591 §3.2.2): a metadata value is refused.
    public static let invalidClientMetadata = OAuthErrorCode(rawValue: "invalid_client_metadata")
    /// `invalid_software_statement` (RFC 7591 §3.2.2).
    public static let invalidSoftwareStatement = OAuthErrorCode(rawValue: "invalid_software_statement")
    /// `unapproved_software_statement` (RFC 7591 §3.2.2).
    public static let unapprovedSoftwareStatement = OAuthErrorCode(rawValue: "unapproved_software_statement")
}

extension ProviderEndpoint {
    /// `registration_client_uri` (RFC 7592): where a registered client is read, updated and deleted.
    public static let registrationClient = ProviderEndpoint(rawValue: "registration_client_uri")
}
