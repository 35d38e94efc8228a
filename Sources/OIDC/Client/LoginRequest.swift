#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a login asks the provider for; ``OIDCClient/startLogin(_:)`` adds fresh state, nonce and S256 PKCE.
///
/// Every default is the safe one: `response_type=code`, the response type's own response mode, the request
/// pushed (PAR, RFC 9126) whenever the provider or the FAPI 2.0 profile requires it, no request object.
///
/// ```swift
/// var request = LoginRequest(redirectURI: callback, scopes: ["openid", "email"])
/// request.prompt = [.login]
/// request.maxAge = 600
/// let pending = try await client.startLogin(request)
/// ```
///
/// Values are checked when the login starts: scope tokens, `prompt=none` alone, the redirect URI (absolute,
/// no fragment), extra parameters that would override a standard one, the length caps.
public struct LoginRequest: Sendable {
    /// Whether the authorization request goes to the provider's PAR endpoint first (RFC 9126).
    public enum Push: Sendable, Hashable {
        /// Pushed when the provider requires it (`require_pushed_authorization_requests`) or the client
        /// enforces the FAPI 2.0 profile; otherwise every parameter travels in the browser's URL.
        case whenRequired
        /// Always pushed: the browser's URL carries only `client_id` and `request_uri`.
        case always
        /// Never pushed. A provider or profile that requires pushing refuses the login with
        /// `pushed_authorization_required` before anything is sent.
        case never
    }

    /// `redirect_uri`: where the provider sends the browser back, registered with the provider.
    public var redirectURI: URL
    /// `scope` tokens, in order; `openid` is put first when missing.
    public var scopes: [String]
    /// `response_type`: `code`, the default, or a hybrid or implicit type that returns tokens.
    public var responseType: ResponseType
    /// `response_mode`: how the answer comes back; `nil` means the response type's default.
    ///
    /// `.formPost` answers with a POST to the redirect URI (finish with ``AuthorizationCallback/formPost(_:)``);
    /// the JARM modes (`.jwt`, `.queryJWT`, ...) answer with a signed response JWT.
    public var responseMode: ResponseMode?
    /// Whether the request is pushed first; `.whenRequired` by default.
    public var push: Push
    /// The request object the parameters travel in (RFC 9101); `nil`, the default, sends them as plain parameters.
    public var requestObject: RequestObject.Configuration?
    /// `prompt` values, in order; `.none` must stand alone.
    public var prompt: [Prompt] = []
    /// `max_age` in seconds: the ID Token's `auth_time` is then required and checked against it.
    public var maxAge: Int?
    /// `acr_values`, in order of preference.
    public var acrValues: [String] = []
    /// `login_hint`.
    public var loginHint: String?
    /// `id_token_hint`: an ID Token the provider issued earlier, treated as a secret.
    public var idTokenHint: String?
    /// `ui_locales`, BCP 47 tags in order of preference.
    public var uiLocales: [String] = []
    /// `claims_locales`, BCP 47 tags in order of preference.
    public var claimsLocales: [String] = []
    /// `display`.
    public var display: Display?
    /// The `claims` request (OpenID Connect Core §5.5); an essential `acr` is then checked in the ID Token.
    public var claims: ClaimsRequest?
    /// Resource indicators (RFC 8707): one `resource` parameter per absolute URI without a fragment.
    public var resources: [URL] = []
    /// Rich Authorization Requests (RFC 9396): sent as one compact JSON `authorization_details` array.
    public var authorizationDetails: [AuthorizationDetail] = []
    /// Provider-specific parameters, sent after the standard ones in name order.
    ///
    /// A standard name (`prompt`, `resource`, ...) is refused with `parameter_collision`: set its property instead.
    public var additionalParameters: [String: String] = [:]
    /// Length caps a provider puts on parameter values, in characters before percent-encoding, by name.
    public var parameterLengthLimits: [String: Int] = [:]

    /// A login request with the safe defaults for everything not given.
    /// - Parameters:
    ///   - redirectURI: where the provider sends the browser back.
    ///   - scopes: the scopes to ask for; `openid` by default.
    ///   - responseType: `code` by default.
    ///   - responseMode: `nil` by default: the response type's own mode.
    ///   - push: `.whenRequired` by default.
    ///   - requestObject: `nil` by default: plain parameters.
    public init(
        redirectURI: URL, scopes: [String] = ["openid"], responseType: ResponseType = .code,
        responseMode: ResponseMode? = nil, push: Push = .whenRequired,
        requestObject: RequestObject.Configuration? = nil
    ) {
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.responseType = responseType
        self.responseMode = responseMode
        self.push = push
        self.requestObject = requestObject
    }
}

extension OAuthRequest {
    /// The authorization request for `login` by client `clientID`, with fresh state, nonce and S256 PKCE.
    package init(clientID: String, login: LoginRequest) throws {
        try self.init(clientID: clientID, redirectURI: login.redirectURI, responseType: login.responseType, scopes: login.scopes)
        responseMode = login.responseMode
        prompt = login.prompt
        maxAge = login.maxAge
        acrValues = login.acrValues
        loginHint = login.loginHint
        idTokenHint = login.idTokenHint
        uiLocales = login.uiLocales
        claimsLocales = login.claimsLocales
        display = login.display
        claims = login.claims
        resources = login.resources
        authorizationDetails = login.authorizationDetails
        additionalParameters = login.additionalParameters
        parameterLengthLimits = login.parameterLengthLimits
    }
}
