#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A login started by ``OIDCClient/startLogin(redirectURI:scopes:responseType:configure:)``: the URL to send the
/// browser to, and everything ``OIDCClient/finishLogin(_:callback:)`` checks the answer against (state, nonce,
/// PKCE verifier, `max_age`, `acr_values`, claims request, response type, redirect URI, issuer, client id).
///
/// `Codable`, so a back end stores it between the two requests of a login (it holds secrets: keep it
/// server-side or encrypted, keyed by the browser session) and finishes the login in another process.
/// ``description``, `dump` and `Mirror` show no secret.
public struct PendingLogin: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The authorization request and the redirect checks (lower layer).
    public let authorization: PendingAuthorization

    /// Wraps a pending authorization of the lower layer.
    /// - Parameter authorization: the request, its URL and the redirect checks.
    public init(_ authorization: PendingAuthorization) { self.authorization = authorization }

    /// The URL to send the browser to.
    public var url: URL { authorization.authorizationURL }
    /// The request that was sent (every parameter, with its secrets).
    public var request: OAuthRequest { authorization.request }
    /// The `state` sent.
    public var state: OAuthState { request.state }
    /// The `nonce` sent.
    public var nonce: Nonce? { request.nonce }
    /// The PKCE verifier, sent with the code.
    public var codeVerifier: CodeVerifier? { request.pkce?.verifier }
    /// The `max_age` sent, in seconds.
    public var maxAge: Int? { request.maxAge }
    /// The `acr_values` sent.
    public var acrValues: [String] { request.acrValues }
    /// The `response_type` sent.
    public var responseType: ResponseType { request.responseType }
    /// The `redirect_uri` sent.
    public var redirectURI: URL { request.redirectURI }
    /// The issuer the login was started at.
    public var issuer: String? { authorization.issuer }
    /// The client id the login was started for.
    public var clientID: String { request.clientID }

    /// `PendingLogin(...)` with every secret redacted.
    public var description: String { "PendingLogin(\(authorization))" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// Only non-secret fields.
    public var customMirror: Mirror { Mirror(self, children: ["authorization": authorization]) }
}
