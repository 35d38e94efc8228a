/// A URL a provider publishes that the library (or the browser it sends there)
/// calls, named by its metadata member (`token_endpoint`, `jwks_uri`, ...). An
/// ``OIDCError`` about such a URL says which one in ``OIDCError/endpoint``.
public struct ProviderEndpoint: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The metadata member name, e.g. `token_endpoint`.
    public let rawValue: String
    /// Wraps a member name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The member name.
    public var description: String { rawValue }

    /// The discovery document itself (`ISSUER/.well-known/openid-configuration`).
    public static let discoveryDocument = ProviderEndpoint(rawValue: "openid-configuration")
    /// `authorization_endpoint`
    public static let authorization = ProviderEndpoint(rawValue: "authorization_endpoint")
    /// `token_endpoint`
    public static let token = ProviderEndpoint(rawValue: "token_endpoint")
    /// `userinfo_endpoint`
    public static let userinfo = ProviderEndpoint(rawValue: "userinfo_endpoint")
    /// `jwks_uri`
    public static let jwks = ProviderEndpoint(rawValue: "jwks_uri")
    /// `registration_endpoint`
    public static let registration = ProviderEndpoint(rawValue: "registration_endpoint")
    /// `revocation_endpoint` (RFC 7009)
    public static let revocation = ProviderEndpoint(rawValue: "revocation_endpoint")
    /// `introspection_endpoint` (RFC 7662)
    public static let introspection = ProviderEndpoint(rawValue: "introspection_endpoint")
    /// `end_session_endpoint` (RP-Initiated Logout)
    public static let endSession = ProviderEndpoint(rawValue: "end_session_endpoint")
    /// `check_session_iframe` (Session Management)
    public static let checkSessionIframe = ProviderEndpoint(rawValue: "check_session_iframe")
    /// `pushed_authorization_request_endpoint` (RFC 9126)
    public static let pushedAuthorizationRequest = ProviderEndpoint(rawValue: "pushed_authorization_request_endpoint")
    /// `device_authorization_endpoint` (RFC 8628)
    public static let deviceAuthorization = ProviderEndpoint(rawValue: "device_authorization_endpoint")
    /// `backchannel_authentication_endpoint` (OpenID Connect CIBA Core 1.0)
    public static let backchannelAuthentication = ProviderEndpoint(rawValue: "backchannel_authentication_endpoint")
    /// An entry of `mtls_endpoint_aliases` (RFC 8705), e.g. `mtls_endpoint_aliases.token_endpoint`.
    package static func mtlsAlias(_ name: String) -> ProviderEndpoint {
        ProviderEndpoint(rawValue: "mtls_endpoint_aliases." + String(name.prefix(64)))
    }
}
