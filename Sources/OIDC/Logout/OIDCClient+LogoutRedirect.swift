import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// Accepts the provider's redirect after RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §3) only when it
    /// comes back to `postLogoutRedirectURI` (scheme, host, port and path) with the `state` that ``logoutURL(idTokenHint:postLogoutRedirectURI:state:)``
    /// sent (compared in constant time), or with none when none was sent.
    /// - Parameters:
    ///   - redirect: the URL the browser arrived at.
    ///   - postLogoutRedirectURI: the `post_logout_redirect_uri` of the logout URL.
    ///   - state: the `state` of the logout URL, `nil` when it sent none.
    /// - Throws: ``/OIDCCore/OIDCError`` `.redirectURIMismatch`, `.stateMismatch` (missing, different, or unexpected),
    ///   `.duplicateResponseParameter`, `.invalidPercentEncoding`.
    public func checkLogoutRedirect(_ redirect: URL, postLogoutRedirectURI: URL, state: String?) throws {
        guard let components = URLComponents(url: redirect, resolvingAgainstBaseURL: false) else {
            throw OIDCError(.redirectURIMismatch, "the post-logout redirect is not a valid URL")
        }
        try RedirectCheck.requireSameEndpoint(components, as: postLogoutRedirectURI)
        let parameters = RedirectCheck.removingRedirectURIQuery(
            from: try FormURLEncoding.parse(components.percentEncodedQuery ?? ""), redirectURI: postLogoutRedirectURI)
        let states = parameters.filter { $0.name == "state" }.map(\.value)
        guard states.count <= 1 else {
            throw OIDCError(.duplicateResponseParameter, "the post-logout redirect carries state more than once")
        }
        switch (state, states.first) {
        case (nil, nil): return
        case (nil, .some): throw OIDCError(.stateMismatch, "the post-logout redirect carries a state and the logout URL sent none")
        case (.some, nil): throw OIDCError(.stateMismatch, "the post-logout redirect carries no state (the logout URL sent one)")
        case (let sent?, let received?):
            guard ConstantTime.equals(sent, received) else {
                throw OIDCError(.stateMismatch, "the post-logout redirect's state differs from the logout URL's")
            }
        }
    }
}
