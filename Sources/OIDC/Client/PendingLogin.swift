#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A login in progress: the URL to send the browser to, and everything ``OIDCClient/finishLogin(_:callback:)``
/// checks the answer against.
///
/// It holds the state, nonce and PKCE verifier, and what was asked: `max_age`, `acr_values`, the claims request,
/// the response type and mode, the redirect URI, the issuer and the client id. `Codable`, so a back end stores
/// it between the two requests of a login and may finish it in another process; it holds secrets, so keep it
/// server-side or encrypted, keyed by the browser's session. ``description``, `dump` and `Mirror` show no secret.
public struct PendingLogin: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The authorization request and the redirect checks.
    package let authorization: PendingAuthorization

    /// Wraps a pending authorization.
    package init(_ authorization: PendingAuthorization) { self.authorization = authorization }

    /// The URL to send the browser to.
    public var url: URL { authorization.authorizationURL }
    /// The `state` sent: a secret, compared in constant time with the answer's.
    public var state: String { request.state.value }

    /// The request that was sent.
    package var request: OAuthRequest { authorization.request }
    /// The `nonce` sent.
    package var nonce: Nonce? { request.nonce }
    /// The PKCE verifier, sent with the code.
    package var codeVerifier: CodeVerifier? { request.pkce?.verifier }
    /// The `max_age` sent, in seconds.
    package var maxAge: Int? { request.maxAge }
    /// The `acr_values` sent.
    package var acrValues: [String] { request.acrValues }
    /// The `response_type` sent.
    package var responseType: ResponseType { request.responseType }
    /// The `redirect_uri` sent.
    package var redirectURI: URL { request.redirectURI }
    /// The issuer the login was started at.
    package var issuer: String? { authorization.issuer }
    /// The client id the login was started for.
    package var clientID: String { request.clientID }

    /// `PendingLogin(...)` with every secret redacted.
    public var description: String { "PendingLogin(\(authorization))" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// Only non-secret fields.
    public var customMirror: Mirror { Mirror(self, children: ["authorization": authorization]) }
}
