/// The provider's successful answer to a login, already checked against the pending login.
///
/// RFC 6749 §4.1.2 and §4.2.2, OpenID Connect Core §3.2.2.5 and §3.3.2.5, and RFC 9207 define its members.
/// ``LoginResult/authorizationResponse`` holds it. It holds secrets: ``description`` shows only which members are present.
public struct AuthorizationResponse: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// `code`, to exchange at the token endpoint.
    public var code: String?
    /// `id_token` (implicit and hybrid flows), still to be validated.
    public var idToken: String?
    /// `access_token` (implicit and hybrid flows).
    public var accessToken: String?
    /// `token_type`, e.g. `Bearer`.
    public var tokenType: String?
    /// `expires_in`, seconds.
    public var expiresIn: Int?
    /// `scope`, when the provider states it.
    public var scope: String?
    /// `state`, already checked against the request.
    public var state: String?
    /// `session_state` (OpenID Connect Session Management).
    public var sessionState: String?
    /// `iss` (RFC 9207), already checked when the issuer was known.
    public var issuer: String?
    /// Every other parameter, decoded.
    public var additionalParameters: [String: String]

    /// A response from its members.
    package init(
        code: String? = nil, idToken: String? = nil, accessToken: String? = nil, tokenType: String? = nil,
        expiresIn: Int? = nil, scope: String? = nil, state: String? = nil, sessionState: String? = nil,
        issuer: String? = nil, additionalParameters: [String: String] = [:]
    ) {
        self.code = code
        self.idToken = idToken
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.scope = scope
        self.state = state
        self.sessionState = sessionState
        self.issuer = issuer
        self.additionalParameters = additionalParameters
    }

    enum CodingKeys: String, CodingKey {
        case code
        case idToken = "id_token"
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case scope, state
        case sessionState = "session_state"
        case issuer = "iss"
        case additionalParameters = "additional_parameters"
    }

    /// `AuthorizationResponse(code: <redacted>, ...)`: secrets redacted; token type, expiry, scope and issuer shown.
    public var description: String {
        var parts: [String] = []
        if code != nil { parts.append("code: <redacted>") }
        if idToken != nil { parts.append("id_token: <redacted>") }
        if accessToken != nil { parts.append("access_token: <redacted>") }
        if let tokenType { parts.append("token_type: \(tokenType)") }
        if let expiresIn { parts.append("expires_in: \(expiresIn)") }
        if let scope { parts.append("scope: \(scope)") }
        if state != nil { parts.append("state: <redacted>") }
        if sessionState != nil { parts.append("session_state: <redacted>") }
        if let issuer { parts.append("iss: \(issuer)") }
        if !additionalParameters.isEmpty { parts.append("additional: \(additionalParameters.keys.sorted())") }
        return "AuthorizationResponse(\(parts.joined(separator: ", ")))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }
    /// Only non-secret members: `dump` shows no code or token.
    public var customMirror: Mirror {
        Mirror(self, children: ["tokenType": tokenType as Any, "expiresIn": expiresIn as Any, "issuer": issuer as Any])
    }
}
