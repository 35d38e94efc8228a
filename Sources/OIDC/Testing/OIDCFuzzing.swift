#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Entry points for the libFuzzer harness in `Tests/Fuzz`, not for applications.
///
/// The harness is a separate package and cannot see `package` symbols; each member
/// forwards to the one implementation the library itself uses.
@_spi(Testing) public enum OIDCFuzzing {
    /// `application/x-www-form-urlencoded` parsing (``OIDCError`` `.invalidPercentEncoding`).
    public static func parseForm(_ text: String) throws -> [(name: String, value: String)] {
        try FormURLEncoding.parse(text)
    }

    /// Percent-decoding without `+` as a space (``OIDCError`` `.invalidPercentEncoding`).
    public static func percentDecode(_ text: String) throws -> String {
        try FormURLEncoding.decode(text, plusAsSpace: false)
    }

    /// The pending logins the redirect fuzzer picks from: every response type and mode, with and without
    /// RFC 9207 `iss`, for the redirect URI `https://client.example/cb?tenant=a`.
    public static let pendingLogins: [PendingLogin] = {
        guard let redirectURI = URL(string: "https://client.example/cb?tenant=a"),
            let endpoint = URL(string: "https://issuer.example/authorize"),
            let state = try? OAuthState("af0ifjsldkj"), let nonce = try? Nonce("n-0S6_WzA2Mj"),
            let verifier = try? CodeVerifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        else { return [] }
        var result: [PendingLogin] = []
        for type in ResponseType.allCases {
            for mode in [nil] + ResponseMode.allCases.map(Optional.some) {
                var request = OAuthRequest(
                    clientID: "client", redirectURI: redirectURI, responseType: type, state: state,
                    nonce: nonce, pkce: type.includesCode ? PKCE(verifier: verifier) : nil)
                request.responseMode = mode
                request.maxAge = 600
                for issuerSupported in [false, true] {
                    if let pending = try? request.pendingAuthorization(
                        at: endpoint, issuer: "https://issuer.example",
                        issuerParameterSupported: issuerSupported)
                    {
                        result.append(PendingLogin(pending))
                    }
                }
            }
        }
        return result
    }()

    /// The redirect checks of a login (``PendingLogin``'s query, fragment and form post parsing) on `text`:
    /// a form post body when `pending` asked for one, else a URL.
    public static func parseAuthorizationResponse(_ text: String, for pending: PendingLogin) throws -> Bool {
        let authorization = pending.authorization
        if authorization.responseMode == .formPost { return try authorization.parseFormPost(text).code != nil }
        guard let url = URL(string: text) else { return false }
        return try authorization.parseRedirect(url).code != nil
    }
}
