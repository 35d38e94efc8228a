import Foundation
import OIDC

/// The front half of a login as plain values, without any network.
func startAuthorization(at authorizationEndpoint: URL) throws -> PendingAuthorization {
    var request = try OAuthRequest(
        clientID: "my-app",
        redirectURI: URL(string: "https://app.example.com/callback")!)
    // fresh 256-bit state and nonce, S256 PKCE; response type `code`, scope `openid`
    request.scopes = ["openid", "profile"]
    request.prompt = [.login]  // `.none` must stand alone
    request.claims = ClaimsRequest(idToken: ["acr": .essential], userinfo: ["email": .voluntary])
    request.parameterLengthLimits["context"] = 280  // a provider's cap, checked before sending
    request.additionalParameters["context"] = "Sign in to pay 10 €"

    return try request.pendingAuthorization(
        at: authorizationEndpoint,
        issuer: "https://idp.example.com",  // both required:
        issuerParameterSupported: true)  // RFC 9207
    // open pending.authorizationURL; persist it (Codable, holds secrets: keep it server-side)
}

/// The redirect back: every check, then the code to exchange with `pending.codeVerifier`.
func finishAuthorization(_ pending: PendingAuthorization, redirectURL: URL) throws -> String? {
    let response = try pending.parseRedirect(redirectURL)  // or parseFormPost(body) for form_post
    // validate the ID Token expecting IDTokenExpectations(request: pending.request, tokenEndpointAccessToken: ...)
    return response.code
}
