#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OAuthRequest {
    /// The parameter names the request sets itself; additional parameters and existing query
    /// items on the base URL may not use them.
    package static let reservedParameterNames: Set<String> = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
        "code_challenge_method", "response_mode", "prompt", "max_age", "display", "ui_locales",
        "claims_locales", "login_hint", "id_token_hint", "acr_values", "claims", "resource",
        "authorization_details",
    ]

    /// Checks every value and returns the parameters, in a fixed order: `response_type`,
    /// `client_id`, `redirect_uri`, `scope`, `state`, `nonce`, `code_challenge`,
    /// `code_challenge_method`, `response_mode`, `prompt`, `max_age`, `display`, `ui_locales`,
    /// `claims_locales`, `login_hint`, `id_token_hint`, `acr_values`, `claims`, one `resource` per
    /// entry of ``resources`` (RFC 8707), `authorization_details` (RFC 9396, compact JSON), then additional
    /// parameters by name. Values are not percent-encoded (use them for a form body, e.g. PAR).
    /// - Throws: ``OIDCError`` `.invalidRequestParameter`, `.invalidRedirectURI`, `.nonceRequired`,
    ///   `.parameterCollision`, `.parameterTooLong`, `.invalidResourceIndicator`.
    package func authorizationParameters() throws -> [(name: String, value: String)] {
        try validate()
        var parameters: [(name: String, value: String)] = [
            ("response_type", responseType.rawValue),
            ("client_id", clientID),
            ("redirect_uri", redirectURI.absoluteString),
        ]
        let scope = effectiveScopes
        if !scope.isEmpty { parameters.append(("scope", scope.joined(separator: " "))) }
        parameters.append(("state", state.value))
        if let nonce { parameters.append(("nonce", nonce.value)) }
        if let pkce {
            parameters.append(("code_challenge", pkce.challenge))
            parameters.append(("code_challenge_method", pkce.method.rawValue))
        }
        if let responseMode { parameters.append(("response_mode", responseMode.rawValue)) }
        if !prompt.isEmpty { parameters.append(("prompt", prompt.map(\.rawValue).joined(separator: " "))) }
        if let maxAge { parameters.append(("max_age", String(maxAge))) }
        if let display { parameters.append(("display", display.rawValue)) }
        if !uiLocales.isEmpty { parameters.append(("ui_locales", uiLocales.joined(separator: " "))) }
        if !claimsLocales.isEmpty { parameters.append(("claims_locales", claimsLocales.joined(separator: " "))) }
        if let loginHint { parameters.append(("login_hint", loginHint)) }
        if let idTokenHint { parameters.append(("id_token_hint", idTokenHint)) }
        if !acrValues.isEmpty { parameters.append(("acr_values", acrValues.joined(separator: " "))) }
        if let claims, !claims.isEmpty { parameters.append(("claims", claims.jsonString)) }
        parameters += try ResourceIndicator.parameters(for: resources)
        if !authorizationDetails.isEmpty {
            parameters.append((AuthorizationDetail.parameterName, AuthorizationDetail.compactJSON(authorizationDetails)))
        }
        for name in additionalParameters.keys.sorted() {
            parameters.append((name, additionalParameters[name] ?? ""))
        }
        for (name, limit) in parameterLengthLimits.sorted(by: { $0.key < $1.key }) {
            guard limit >= 0 else {
                throw OIDCError(.invalidRequestParameter, "the length limit for '\(name)' is negative")
            }
            for parameter in parameters where parameter.name == name && parameter.value.count > limit {
                throw OIDCError(
                    .parameterTooLong,
                    "parameter '\(name)' has \(parameter.value.count) characters; the limit is \(limit)")
            }
        }
        return parameters
    }

    /// Checks the request without producing anything; ``authorizationParameters()`` calls it.
    /// - Throws: as ``authorizationParameters()``.
    package func validate() throws {
        guard !clientID.isEmpty, clientID.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw OIDCError(.invalidRequestParameter, "client_id must be one or more visible ASCII characters (RFC 6749 Appendix A.1)")
        }
        try Self.checkRedirectURI(redirectURI)
        for scope in scopes {
            // RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
            guard !scope.isEmpty, scope.utf8.allSatisfy({ $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }) else {
                throw OIDCError(.invalidRequestParameter, "scope '\(scope.prefix(64))' is not a valid scope token (RFC 6749 §3.3)")
            }
        }
        if responseType.includesIDToken && nonce == nil {
            throw OIDCError(
                .nonceRequired,
                "response_type '\(responseType.rawValue)' returns an ID Token from the authorization endpoint, so a nonce is required (OpenID Connect Core §3.2.2.1, §3.3.2.11)"
            )
        }
        if pkce != nil && !responseType.includesCode {
            throw OIDCError(.invalidRequestParameter, "PKCE applies only to response types with code, not '\(responseType.rawValue)'")
        }
        if responseMode == .query && responseType != .code {
            throw OIDCError(
                .invalidRequestParameter,
                "response_mode=query is forbidden for '\(responseType.rawValue)': tokens must not be returned in the query (Multiple Response Types §5)")
        }
        try checkPrompt()
        if let maxAge, maxAge < 0 {
            throw OIDCError(.invalidRequestParameter, "max_age must not be negative")
        }
        try Self.checkTokens(acrValues, "acr_values")
        try Self.checkTokens(uiLocales, "ui_locales")
        try Self.checkTokens(claimsLocales, "claims_locales")
        if let loginHint, loginHint.isEmpty { throw OIDCError(.invalidRequestParameter, "login_hint is empty") }
        if let idTokenHint, idTokenHint.isEmpty { throw OIDCError(.invalidRequestParameter, "id_token_hint is empty") }
        for name in additionalParameters.keys.sorted() {
            guard !name.isEmpty else { throw OIDCError(.invalidRequestParameter, "an additional parameter has an empty name") }
            if Self.reservedParameterNames.contains(name) {
                throw OIDCError(.parameterCollision, "additional parameter '\(name)' would override the standard parameter; set the property for it instead")
            }
        }
    }

    private func checkPrompt() throws {
        guard !prompt.isEmpty else { return }
        if prompt.contains(.none) && prompt.count > 1 {
            throw OIDCError(.invalidRequestParameter, "prompt=none cannot be combined with other values (OpenID Connect Core §3.1.2.1)")
        }
        if Set(prompt).count != prompt.count {
            throw OIDCError(.invalidRequestParameter, "prompt lists a value twice")
        }
        try Self.checkTokens(prompt.map(\.rawValue), "prompt")
    }

    private static func checkTokens(_ tokens: [String], _ name: String) throws {
        for token in tokens where token.isEmpty || token.contains(where: { $0 == " " || $0.isNewline }) {
            throw OIDCError(.invalidRequestParameter, "\(name) has an empty value or one with a space")
        }
    }

    /// RFC 6749 §3.1.2: an absolute URI without a fragment.
    static func checkRedirectURI(_ uri: URL) throws {
        guard let scheme = uri.scheme, !scheme.isEmpty else {
            throw OIDCError(.invalidRedirectURI, "the redirect URI must be absolute (have a scheme)")
        }
        let components = URLComponents(url: uri, resolvingAgainstBaseURL: false)
        if components?.percentEncodedFragment != nil {
            throw OIDCError(.invalidRedirectURI, "the redirect URI must not have a fragment (RFC 6749 §3.1.2)")
        }
        let lower = scheme.lowercased()
        if (lower == "http" || lower == "https") && (uri.host ?? "").isEmpty {
            throw OIDCError(.invalidRedirectURI, "an \(lower) redirect URI needs a host")
        }
    }
}
