#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// Starts a login whose answer comes back the way `responseMode` says — `.formPost` (OAuth 2.0 Form Post
    /// Response Mode: the browser POSTs the answer to the redirect URI; finish it with
    /// ``AuthorizationCallback/formPost(_:)``), `.query` or `.fragment` — and otherwise as
    /// ``startLogin(redirectURI:scopes:responseType:configure:)``: fresh state, nonce and S256 PKCE.
    /// - Parameters:
    ///   - redirectURI: where the provider sends the answer (registered with the provider).
    ///   - scopes: the scopes to ask for (`openid` is put first when missing).
    ///   - responseType: `code` (default) or a hybrid or implicit type.
    ///   - responseMode: how the answer is delivered.
    ///   - configure: sets anything else ``OAuthRequest`` offers.
    /// - Throws: ``OIDCError``: as ``startLogin(_:)``.
    public func startLogin(redirectURI: URL, scopes: [String] = ["openid"], responseType: ResponseType = .code,
                           responseMode: ResponseMode, configure: (inout OAuthRequest) throws -> Void = { _ in }) throws -> PendingLogin {
        try startLogin(redirectURI: redirectURI, scopes: scopes, responseType: responseType) { request in
            request.responseMode = responseMode
            try configure(&request)
        }
    }
}
