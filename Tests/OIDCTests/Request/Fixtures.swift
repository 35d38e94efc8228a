import Foundation
import JOSE
import Testing

@testable import OIDC

/// Fixed values so URLs and responses are predictable.
enum Fixture {
    static let endpoint = URL(string: "https://idp.example.com/oauth2/authorize")!
    static let redirectURI = URL(string: "https://app.example.com/callback")!
    static let issuer = "https://idp.example.com"
    static let stateText = "state-0123456789abcdefghijklmnopqrstuvwxyzAB"
    static let nonceText = "nonce-0123456789abcdefghijklmnopqrstuvwxyzAB"
    static let verifierText = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    static func request(
        _ responseType: ResponseType = .code, scopes: [String] = ["openid"],
        redirectURI: URL = redirectURI
    ) -> OAuthRequest {
        OAuthRequest(
            clientID: "client-1", redirectURI: redirectURI, responseType: responseType, scopes: scopes,
            state: try! OAuthState(stateText), nonce: try! Nonce(nonceText),
            pkce: responseType.includesCode ? PKCE(verifier: try! CodeVerifier(verifierText)) : nil)
    }

    static func pending(
        _ responseType: ResponseType = .code, responseMode: ResponseMode? = nil,
        issuer: String? = nil, issuerParameterSupported: Bool = false,
        redirectURI: URL = redirectURI
    ) throws -> PendingAuthorization {
        var request = request(responseType, redirectURI: redirectURI)
        request.responseMode = responseMode
        return try PendingAuthorization(
            request: request, authorizationEndpoint: endpoint, issuer: issuer,
            issuerParameterSupported: issuerParameterSupported)
    }

    /// The decoded query items of a URL, in order.
    static func queryItems(_ url: URL) throws -> [(name: String, value: String)] {
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        return try FormURLEncoding.parse(query, plusAsSpace: false)
    }

    /// The single decoded value of a query item.
    static func query(_ url: URL, _ name: String) throws -> String? {
        let matches = try queryItems(url).filter { $0.name == name }
        #expect(matches.count <= 1, "\(name) appears \(matches.count) times")
        return matches.first?.value
    }
}

/// Runs `body` and returns the OIDCError code it throws, or nil when it does not throw.
func errorCode(_ body: () throws -> Void) -> OIDCError.Code? {
    do {
        try body()
        return nil
    } catch let error as OIDCError {
        return error.code
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// The OIDCError thrown by `body`, or nil.
func oidcError(_ body: () throws -> Void) -> OIDCError? {
    do {
        try body()
        return nil
    } catch {
        return error as? OIDCError
    }
}
