#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The checks on an authorization response, shared by the redirect and form-post paths.
enum RedirectCheck {
    /// Names that mark a set of parameters as an authorization response.
    static let responseNames: Set<String> = ["code", "error", "state", "id_token", "access_token"]

    /// The redirect must come back to the same scheme, host, port and path as the redirect URI, carrying every
    /// query parameter the registered redirect URI has (RFC 6749 §3.1.2), with the same value.
    static func requireSameEndpoint(_ actual: URLComponents, as expected: URL) throws {
        guard let wanted = URLComponents(url: expected, resolvingAgainstBaseURL: false) else {
            throw OIDCError(.invalidRedirectURI, "the request's redirect URI is not a valid URL")
        }
        let scheme = (actual.scheme ?? "").lowercased()
        if scheme != (wanted.scheme ?? "").lowercased() {
            throw OIDCError(.redirectURIMismatch, "the redirect's scheme differs from the redirect URI's")
        }
        if (actual.host ?? "").lowercased() != (wanted.host ?? "").lowercased() {
            throw OIDCError(.redirectURIMismatch, "the redirect's host differs from the redirect URI's")
        }
        if effectivePort(actual.port, scheme: scheme) != effectivePort(wanted.port, scheme: scheme) {
            throw OIDCError(.redirectURIMismatch, "the redirect's port differs from the redirect URI's")
        }
        if normalizedPath(actual.percentEncodedPath, scheme: scheme) != normalizedPath(wanted.percentEncodedPath, scheme: scheme) {
            throw OIDCError(.redirectURIMismatch, "the redirect's path differs from the redirect URI's")
        }
        guard let registered = wanted.percentEncodedQuery, let own = try? FormURLEncoding.parse(registered), !own.isEmpty else { return }
        var received = try FormURLEncoding.parse(actual.percentEncodedQuery ?? "")
        for item in own {
            guard let index = received.firstIndex(where: { $0.name == item.name && $0.value == item.value }) else {
                throw OIDCError(
                    .redirectURIMismatch, "the redirect lacks the redirect URI's query parameter '\(item.name.prefix(64))' with its registered value")
            }
            received.remove(at: index)
        }
    }

    private static func effectivePort(_ port: Int?, scheme: String) -> Int? {
        if let port { return port }
        switch scheme {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    private static func normalizedPath(_ path: String, scheme: String) -> String {
        (scheme == "http" || scheme == "https") && path.isEmpty ? "/" : path
    }

    /// Drops, once each, the query items the registered redirect URI itself carries (RFC 6749 §3.1.2 allows them).
    static func removingRedirectURIQuery(
        from parameters: [(name: String, value: String)],
        redirectURI: URL
    ) -> [(name: String, value: String)] {
        guard let query = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)?.percentEncodedQuery,
            let own = try? FormURLEncoding.parse(query), !own.isEmpty
        else { return parameters }
        var remaining = parameters
        for item in own {
            if let index = remaining.firstIndex(where: { $0.name == item.name && $0.value == item.value }) {
                remaining.remove(at: index)
            }
        }
        return remaining
    }

    /// Turns decoded parameters into a checked response, or throws.
    static func response(from parameters: [(name: String, value: String)], for pending: PendingAuthorization) throws
        -> AuthorizationResponse
    {
        var values: [String: String] = [:]
        for parameter in parameters {
            if values[parameter.name] != nil {
                throw OIDCError(.duplicateResponseParameter, "parameter '\(parameter.name.prefix(64))' occurs more than once (RFC 6749 §3.1)")
            }
            values[parameter.name] = parameter.value
        }
        // RFC 6749 §3.1: parameters sent without a value are treated as omitted.
        values = values.filter { !$0.value.isEmpty }

        let oauthError = values["error"].map {
            OAuthError(
                error: $0, errorDescription: values["error_description"], errorURI: values["error_uri"],
                state: values["state"])
        }
        if oauthError != nil, let result = ["code", "id_token", "access_token"].first(where: { values[$0] != nil }) {
            throw OIDCError(.ambiguousResponse, "the response carries both error and \(result)")
        }
        if oauthError == nil && values.isEmpty {
            throw OIDCError(.missingResponseParameter, "the redirect carries no authorization response parameters")
        }
        try checkIssuer(values["iss"], pending: pending, oauthError: oauthError)
        guard let state = values["state"] else {
            throw OIDCError(.stateMismatch, "the response has no state", oauthError: oauthError)
        }
        guard pending.request.state.matches(state) else {
            throw OIDCError(.stateMismatch, "the response's state differs from the request's", oauthError: oauthError)
        }
        if let oauthError {
            throw OIDCError(.authorizationError, "the provider returned \(describe(oauthError))", oauthError: oauthError)
        }
        return try success(values, responseType: pending.request.responseType)
    }

    private static func describe(_ error: OAuthError) -> String {
        let code = String(error.error.prefix(64))
        guard let text = error.errorDescription else { return code }
        return "\(code): \(text.prefix(300))"
    }

    private static func checkIssuer(_ iss: String?, pending: PendingAuthorization, oauthError: OAuthError?) throws {
        guard let iss else {
            if pending.issuerParameterSupported {
                throw OIDCError(
                    .responseIssuerMismatch, "the provider sends iss (RFC 9207) but the response has none",
                    oauthError: oauthError)
            }
            return
        }
        // RFC 9207 §2.4: simple string comparison when the issuer is known.
        if let expected = pending.issuer, iss != expected {
            throw OIDCError(
                .responseIssuerMismatch, "the response's iss '\(iss.prefix(200))' is not the issuer '\(expected)'",
                oauthError: oauthError)
        }
    }

    private static func success(_ values: [String: String], responseType: ResponseType) throws -> AuthorizationResponse {
        func require(_ name: String, _ why: String) throws -> String {
            guard let value = values[name] else {
                throw OIDCError(.missingResponseParameter, "the response has no \(name), which \(why)")
            }
            return value
        }
        func forbid(_ name: String) throws {
            if values[name] != nil {
                throw OIDCError(.invalidResponseParameter, "the response carries \(name), which response_type '\(responseType.rawValue)' does not ask for")
            }
        }
        let kind = "response_type '\(responseType.rawValue)' requires"
        var response = AuthorizationResponse()
        if responseType.includesCode { response.code = try require("code", kind) } else { try forbid("code") }
        if responseType.includesIDToken { response.idToken = try require("id_token", kind) } else { try forbid("id_token") }
        if responseType.includesAccessToken {
            response.accessToken = try require("access_token", kind)
            response.tokenType = try require("token_type", "an access token requires (RFC 6749 §4.2.2)")
        } else {
            try forbid("access_token")
        }
        if let expires = values["expires_in"] {
            guard let seconds = Int(expires), seconds >= 0 else {
                throw OIDCError(.invalidResponseParameter, "expires_in is not a non-negative integer")
            }
            response.expiresIn = seconds
        }
        if response.tokenType == nil { response.tokenType = values["token_type"] }
        response.scope = values["scope"]
        response.state = values["state"]
        response.sessionState = values["session_state"]
        response.issuer = values["iss"]
        let known: Set<String> = [
            "code", "id_token", "access_token", "token_type", "expires_in", "scope", "state",
            "session_state", "iss",
        ]
        response.additionalParameters = values.filter { !known.contains($0.key) }
        return response
    }
}
