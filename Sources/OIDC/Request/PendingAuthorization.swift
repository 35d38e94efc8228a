#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A login in progress: the request with its secrets (state, nonce, PKCE verifier), the URL
/// to open, and how to check the redirect back.
///
/// `Codable`, so a back end can persist it (it holds secrets: store it encrypted or server-side,
/// keyed by session) and finish the login in another process with ``parseRedirect(_:)``.
package struct PendingAuthorization: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The request.
    package let request: OAuthRequest
    /// The URL to open in the browser.
    package let authorizationURL: URL
    /// The provider's issuer identifier, when known; `iss` in the redirect must then equal it.
    package let issuer: String?
    /// Whether the redirect must carry `iss` (RFC 9207).
    package let issuerParameterSupported: Bool

    /// Builds the authorization URL and keeps what the redirect check needs.
    /// - Throws: as ``OAuthRequest/authorizationURL(at:)``; `.invalidRequestParameter` when
    ///   `issuerParameterSupported` is set without an issuer.
    /// `issuer` and `issuerParameterSupported` have no default: `nil` / `false` must be stated.
    /// - Parameters:
    ///   - request: the request.
    ///   - authorizationEndpoint: the provider's authorization endpoint (or an app link).
    ///   - issuer: the provider's issuer identifier, for the RFC 9207 `iss` check; `nil` when unknown.
    ///   - issuerParameterSupported: the provider always sends `iss`; a redirect without it is then refused.
    package init(
        request: OAuthRequest, authorizationEndpoint: URL, issuer: String?,
        issuerParameterSupported: Bool
    ) throws {
        if issuerParameterSupported && (issuer ?? "").isEmpty {
            throw OIDCError(.invalidRequestParameter, "checking the iss parameter (RFC 9207) needs the issuer")
        }
        self.request = request
        self.authorizationURL = try request.authorizationURL(at: authorizationEndpoint)
        self.issuer = issuer
        self.issuerParameterSupported = issuerParameterSupported
    }

    /// A pending authorization whose front-channel URL is `pushedURL` (PAR: `client_id` and
    /// `request_uri` only); the request's parameters went to the PAR endpoint.
    package init(request: OAuthRequest, pushedURL: URL, issuer: String?, issuerParameterSupported: Bool) throws {
        if issuerParameterSupported && (issuer ?? "").isEmpty {
            throw OIDCError(.invalidRequestParameter, "checking the iss parameter (RFC 9207) needs the issuer")
        }
        self.request = request
        self.authorizationURL = pushedURL
        self.issuer = issuer
        self.issuerParameterSupported = issuerParameterSupported
    }

    /// The state sent.
    package var state: OAuthState { request.state }
    /// The nonce sent; the ID Token's `nonce` claim must match it.
    package var nonce: Nonce? { request.nonce }
    /// The PKCE verifier, for the token request.
    package var codeVerifier: CodeVerifier? { request.pkce?.verifier }
    /// Where the response is expected.
    package var responseMode: ResponseMode { request.effectiveResponseMode }

    /// Parses and checks the redirect back (the URL the browser was sent to).
    ///
    /// Reads the query or the fragment as the response mode says; `+` decodes as a space
    /// (form encoding, RFC 6749 Appendix B). When that place is empty, an `error` response in the
    /// other place is accepted (providers that reject a request early put it in the query), but a
    /// result there is a `.responseModeMismatch`. Checks, in order: the URL's scheme, host, port and
    /// path equal the redirect URI's; no parameter repeats; not both `error` and a result;
    /// `iss` (RFC 9207); `state` (constant time); then the members the response type requires.
    /// Parameters with empty values count as absent (RFC 6749 §3.1).
    /// - Returns: the checked success.
    /// - Throws: ``OIDCError``: `.authorizationError` with ``OIDCError/oauthError`` when the provider
    ///   answered with an error (its `state` and `iss` checked first); `.redirectURIMismatch`,
    ///   `.responseModeMismatch`, `.duplicateResponseParameter`, `.ambiguousResponse`,
    ///   `.responseIssuerMismatch`, `.stateMismatch`, `.missingResponseParameter`,
    ///   `.invalidResponseParameter`, `.invalidPercentEncoding`.
    package func parseRedirect(_ url: URL) throws -> AuthorizationResponse {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw OIDCError(.redirectURIMismatch, "the redirect is not a valid URL")
        }
        try RedirectCheck.requireSameEndpoint(components, as: request.redirectURI)
        let query = RedirectCheck.removingRedirectURIQuery(
            from: try FormURLEncoding.parse(components.percentEncodedQuery ?? ""), redirectURI: request.redirectURI)
        let fragment = try FormURLEncoding.parse(components.percentEncodedFragment ?? "")
        let expected: [(name: String, value: String)]
        let other: [(name: String, value: String)]
        switch responseMode {
        case .formPost:
            throw OIDCError(.responseModeMismatch, "the request asked for response_mode=form_post; parse the POST body with parseFormPost(_:)")
        case .jwt, .queryJWT, .fragmentJWT, .formPostJWT:
            throw OIDCError(
                .responseModeMismatch,
                "the request asked for a JARM response (response_mode=\(responseMode.rawValue)); "
                    + "OIDCClient.finishLogin verifies the response JWT")
        case .query:
            (expected, other) = (query, fragment)
        case .fragment:
            (expected, other) = (fragment, query)
        }
        let elsewhere = responseMode == .query ? "fragment" : "query"
        var parameters = expected
        if expected.isEmpty && other.contains(where: { RedirectCheck.responseNames.contains($0.name) }) {
            // Providers that reject a request before honouring its response mode put the error in the
            // query (e.g. unauthorized_client for a hybrid request). An error carries no token, so it is
            // read from there (state and iss still checked); a result in the wrong place is refused.
            let carriesResult = other.contains { ["code", "id_token", "access_token"].contains($0.name) }
            guard other.contains(where: { $0.name == "error" }), !carriesResult else {
                throw OIDCError(.responseModeMismatch, "the response is in the \(elsewhere), but the request expects it in the \(responseMode.rawValue)")
            }
            parameters = other
        }
        return try RedirectCheck.response(from: parameters, for: self)
    }

    /// Parses and checks a `form_post` response: the `application/x-www-form-urlencoded` body
    /// the browser posted to the redirect URI. Same checks as ``parseRedirect(_:)`` except the
    /// URL comparison (the caller's route already matched it).
    /// - Throws: as ``parseRedirect(_:)``; `.responseModeMismatch` when the request did not ask for `form_post`.
    package func parseFormPost(_ body: String) throws -> AuthorizationResponse {
        guard responseMode == .formPost else {
            throw OIDCError(.responseModeMismatch, "the request expects the response in the \(responseMode.rawValue), not a form post")
        }
        return try RedirectCheck.response(from: FormURLEncoding.parse(body), for: self)
    }

    /// `PendingAuthorization(request: ..., issuer: ...)` with every secret redacted.
    package var description: String {
        "PendingAuthorization(request: \(request), issuer: \(issuer ?? "unknown"), iss required: \(issuerParameterSupported))"
    }
    /// Same as ``description``.
    package var debugDescription: String { description }
    /// Only non-secret fields.
    package var customMirror: Mirror {
        Mirror(self, children: ["request": request, "issuer": issuer as Any, "issuerParameterSupported": issuerParameterSupported])
    }
}
