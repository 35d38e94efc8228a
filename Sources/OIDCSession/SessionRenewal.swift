import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a session gets new tokens: the one switch between a user's grant and the client's own.
package enum SessionRenewal: Sendable {
    /// The refresh-token grant through a refresher (a client, a token client, a test double).
    case refreshToken(any TokenRefresher)
    /// A new client-credentials grant through the source: no refresh token is involved or kept.
    case clientCredentials(ClientCredentialsTokenSource)

    /// Whether renewing needs a refresh token in the tokens held.
    var needsRefreshToken: Bool {
        if case .refreshToken = self { return true }
        return false
    }

    /// The `grant_type` reported to the observer for a renewal.
    var grantType: String {
        switch self {
        case .refreshToken: return "refresh_token"
        case .clientCredentials: return "client_credentials"
        }
    }

    /// The DPoP binding of the renewing client, if it has one: its tokens are DPoP-bound.
    var dpopBinding: DPoPBinding? {
        switch self {
        case .refreshToken(let refresher): return (refresher as? any SessionDPoPKeyHolder)?.sessionDPoPBinding
        case .clientCredentials(let source): return source.client.dpop
        }
    }
}
