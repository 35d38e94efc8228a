#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An OAuth 2.0 / OpenID Connect authorization request: everything sent to the
/// authorization endpoint, plus the secrets kept to check the answer.
///
/// ```swift
/// var request = try OAuthRequest(clientID: "my-app", redirectURI: callback)   // fresh state, nonce, S256 PKCE
/// request.scopes = ["openid", "profile"]
/// request.prompt = [.login]
/// request.parameterLengthLimits["context"] = 280
/// request.additionalParameters["context"] = message
/// let pending = try request.pendingAuthorization(at: endpoint, issuer: issuer)
/// ```
///
/// Properties are plain values; everything is checked when parameters are produced
/// (``authorizationParameters()``, ``authorizationURL(at:)``). ``description`` never shows
/// the state, nonce, verifier or ID Token hint.
package struct OAuthRequest: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// `client_id`.
    package var clientID: String
    /// `redirect_uri`: where the provider sends the answer.
    package var redirectURI: URL
    /// `response_type`.
    package var responseType: ResponseType
    /// `scope` tokens, in order. `openid` is put first when the request needs it (see ``effectiveScopes``).
    package var scopes: [String]
    /// `state`, checked against the redirect.
    package var state: OAuthState
    /// `nonce`; required when ``responseType`` returns an ID Token from the authorization endpoint.
    package var nonce: Nonce?
    /// PKCE (`code_challenge`, `code_challenge_method`); only for response types with `code`.
    package var pkce: PKCE?
    /// `response_mode`, sent only when set; otherwise the response type's default applies.
    package var responseMode: ResponseMode?
    /// `prompt` values, in order; ``Prompt/none`` must stand alone.
    package var prompt: [Prompt]
    /// `max_age`, in seconds.
    package var maxAge: Int?
    /// `acr_values`, in order of preference.
    package var acrValues: [String]
    /// `login_hint`.
    package var loginHint: String?
    /// `id_token_hint`: a previously issued ID Token (treated as a secret).
    package var idTokenHint: String?
    /// `ui_locales` (BCP 47 tags), in order of preference.
    package var uiLocales: [String]
    /// `claims_locales` (BCP 47 tags), in order of preference.
    package var claimsLocales: [String]
    /// `display`.
    package var display: Display?
    /// The `claims` request parameter; not sent when `nil` or empty.
    package var claims: ClaimsRequest?
    /// Provider-specific parameters (`correlation_id`, `context`, ...), sent after the standard
    /// ones in name order. A name the request sets itself is a ``OIDCError/Code/parameterCollision``.
    package var additionalParameters: [String: String]
    /// Maximum lengths, in characters (`Character`s, before percent-encoding), of parameter values
    /// a provider caps, by parameter name; e.g. `["context": 280]`. Checked before any URL is built.
    package var parameterLengthLimits: [String: Int]
    /// Resource indicators (RFC 8707 §2): one `resource` parameter per URI, in order, sent
    /// after `claims`, on the authorization URL and in the PAR body alike. Each must be an
    /// absolute URI without a fragment (checked when parameters are produced). `resource` is a
    /// reserved name, so ``additionalParameters`` cannot carry it.
    package var resources: [URL] {
        get { resourceIndicators ?? [] }
        set { resourceIndicators = newValue.isEmpty ? nil : newValue }
    }
    /// Stored optional, so requests encoded before ``resources`` existed still decode.
    private var resourceIndicators: [URL]?
    /// Rich Authorization Requests (RFC 9396): the `authorization_details` objects, sent as one compact JSON
    /// array after `resource`, on the authorization URL, in the PAR body and in request objects (as a JSON array
    /// claim). `authorization_details` is a reserved name, so ``additionalParameters`` cannot carry it.
    package var authorizationDetails: [AuthorizationDetail] {
        get { authorizationDetailsStorage ?? [] }
        set { authorizationDetailsStorage = newValue.isEmpty ? nil : newValue }
    }
    /// Stored optional, so requests encoded before ``authorizationDetails`` existed still decode.
    private var authorizationDetailsStorage: [AuthorizationDetail]?

    /// A request with fresh secrets: a random ``state`` and ``nonce``, and `S256` ``PKCE`` when
    /// the response type includes `code`.
    /// - Throws: ``OIDCError`` `.randomGenerationFailed`.
    package init(clientID: String, redirectURI: URL, responseType: ResponseType = .code, scopes: [String] = ["openid"]) throws {
        self.init(
            clientID: clientID, redirectURI: redirectURI, responseType: responseType, scopes: scopes,
            state: try .random(), nonce: try .random(), pkce: responseType.includesCode ? try .random() : nil)
    }

    /// A request with the given secrets (for tests, or when they come from elsewhere).
    package init(
        clientID: String, redirectURI: URL, responseType: ResponseType = .code, scopes: [String] = ["openid"],
        state: OAuthState, nonce: Nonce?, pkce: PKCE?
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.responseType = responseType
        self.scopes = scopes
        self.state = state
        self.nonce = nonce
        self.pkce = pkce
        responseMode = nil
        prompt = []
        maxAge = nil
        acrValues = []
        loginHint = nil
        idTokenHint = nil
        uiLocales = []
        claimsLocales = []
        display = nil
        claims = nil
        additionalParameters = [:]
        parameterLengthLimits = [:]
        resourceIndicators = nil
        authorizationDetailsStorage = nil
    }

    /// The response mode in force: ``responseMode`` when set, else the response type's default.
    package var effectiveResponseMode: ResponseMode { responseMode ?? responseType.defaultResponseMode }

    /// Whether this is an OpenID Connect request: the response type returns an ID Token, or the
    /// request carries a nonce, claims, an ID Token hint, `max_age` or `acr_values`.
    package var isOpenIDRequest: Bool {
        responseType.includesIDToken || nonce != nil || !(claims?.isEmpty ?? true) || idTokenHint != nil
            || maxAge != nil || !acrValues.isEmpty
    }

    /// ``scopes`` without repeats, with `openid` first when ``isOpenIDRequest`` and it is missing.
    package var effectiveScopes: [String] {
        var seen = Set<String>()
        var result: [String] = []
        if isOpenIDRequest && !scopes.contains("openid") { result.append("openid"); seen.insert("openid") }
        for scope in scopes where seen.insert(scope).inserted { result.append(scope) }
        return result
    }

    /// `OAuthRequest(client_id: ..., response_type: ..., ...)` with every secret redacted.
    package var description: String {
        var parts = [
            "client_id: \(clientID)", "redirect_uri: \(redirectURI.absoluteString)",
            "response_type: \(responseType.rawValue)", "scope: \(effectiveScopes.joined(separator: " "))",
            "state: <redacted>",
        ]
        if nonce != nil { parts.append("nonce: <redacted>") }
        if let pkce { parts.append("pkce: \(pkce)") }
        if let responseMode { parts.append("response_mode: \(responseMode.rawValue)") }
        if !prompt.isEmpty { parts.append("prompt: \(prompt.map(\.rawValue).joined(separator: " "))") }
        if let maxAge { parts.append("max_age: \(maxAge)") }
        if idTokenHint != nil { parts.append("id_token_hint: <redacted>") }
        if !resources.isEmpty { parts.append("resource: \(resources.map(\.absoluteString))") }
        if !authorizationDetails.isEmpty { parts.append("authorization_details types: \(authorizationDetails.map(\.type))") }
        if !additionalParameters.isEmpty { parts.append("additional: \(additionalParameters.keys.sorted())") }
        return "OAuthRequest(\(parts.joined(separator: ", ")))"
    }

    /// Same as ``description``.
    package var debugDescription: String { description }

    /// Only non-secret fields: `dump` shows no state, nonce, verifier or hint.
    package var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "clientID": clientID, "redirectURI": redirectURI, "responseType": responseType,
                "scopes": scopes, "responseMode": responseMode as Any,
            ])
    }
}
