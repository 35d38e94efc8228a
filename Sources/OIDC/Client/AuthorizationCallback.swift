#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The provider's answer to a login, in whichever form the back end received it.
///
/// ``OIDCClient/finishLogin(_:callback:)`` reads it as the pending login's response mode says: query,
/// fragment, form post, or a JARM response JWT in any of them.
public enum AuthorizationCallback: Sendable {
    /// The full URL the browser was redirected to: its scheme, host, port and path must equal the
    /// redirect URI's, and the response is read from the query or fragment as the response mode says.
    case url(URL)
    /// Only the response parameters, percent-encoded as they arrived: the query (`code=...&state=...`,
    /// without `?`), a fragment forwarded by the page, or a `form_post` body. For a back end behind a
    /// TLS-terminating proxy, which sees `http://localhost:8080/callback?...` rather than the registered
    /// `https://` URL; every other check is the same.
    case parameters(String)
    /// The body of the POST a `form_post` answer made to the redirect URI (OAuth 2.0 Form Post Response
    /// Mode), `application/x-www-form-urlencoded` as received: for a login started with
    /// `responseMode = .formPost` only (else `.responseModeMismatch`), with the checks of the query form.
    /// Any provider; Apple's `user` field, when posted, is in ``LoginResult/formPostUser``.
    case formPost(String)
    /// Response parameters a web framework already decoded. A repeated parameter cannot be detected here:
    /// prefer ``parameters(_:)`` when the raw text is at hand.
    case decodedParameters([String: String])
    /// The authorization code alone, which an app received and checked itself (redirect URI, `state`, `iss`).
    ///
    /// Only the token half is checked here: the PKCE verifier, the token type and the ID Token with its nonce.
    /// For a pending login made by ``OIDCClient/pendingLogin(startedByApp:codeVerifier:nonce:)``; with a login
    /// this back end started, prefer the forms that carry `state`.
    case codeCheckedByApp(String)
}

extension PendingAuthorization {
    /// Parses and checks an authorization response given as its parameters only (see
    /// ``AuthorizationCallback/parameters(_:)``): every check of ``parseRedirect(_:)`` except the URL
    /// comparison and where the parameters were found.
    /// - Parameter encoded: the parameters, percent-encoded (a leading `?` or `#` is ignored).
    /// - Throws: as ``parseRedirect(_:)``.
    package func parseResponseParameters(_ encoded: String) throws -> AuthorizationResponse {
        var text = Substring(encoded)
        if text.hasPrefix("?") || text.hasPrefix("#") { text = text.dropFirst() }
        let parameters = RedirectCheck.removingRedirectURIQuery(
            from: try FormURLEncoding.parse(String(text)),
            redirectURI: request.redirectURI)
        return try RedirectCheck.response(from: parameters, for: self)
    }

    /// Parses and checks the callback in whichever form the back end has it.
    /// - Parameter callback: the redirect URL or its parameters.
    /// - Throws: as ``parseRedirect(_:)``.
    package func parse(_ callback: AuthorizationCallback) throws -> AuthorizationResponse {
        switch callback {
        case .url(let url):
            return try parseRedirect(url)
        case .parameters(let encoded):
            return try parseResponseParameters(encoded)
        case .formPost(let body):
            return try parseFormPost(body)
        case .decodedParameters(let values):
            return try RedirectCheck.response(
                from: values.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) },
                for: self)
        case .codeCheckedByApp:
            throw OIDCError(.responseModeMismatch, "a code checked by the app carries no response to parse")
        }
    }
}
