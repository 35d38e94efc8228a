import Foundation
import OIDC

/// The front half of a login with no network: a client made from metadata the app already holds.
func startAuthorization(metadataJSON: [UInt8]) async throws -> PendingLogin {
    let metadata = try ProviderMetadata(jsonBytes: metadataJSON)  // issuer, endpoints and jwks_uri checked
    let client = try OIDCClient(metadata: metadata, authentication: .none(clientID: "my-app"))
    var request = LoginRequest(
        redirectURI: URL(string: "https://app.example.com/callback")!,
        scopes: ["openid", "profile"],
        push: .never)  // nothing is sent before the redirect (refused when the provider requires PAR)
    // fresh 256-bit state and nonce, S256 PKCE; response type `code`
    request.prompt = [.login]  // `.none` must stand alone
    request.claims = ClaimsRequest(idToken: ["acr": .essential], userinfo: ["email": .voluntary])
    request.parameterLengthLimits["context"] = 280  // a provider's cap, checked before sending
    request.additionalParameters["context"] = "Sign in to pay 10 €"
    return try await client.startLogin(request)
    // send the browser to pending.url; keep pending server-side (Codable, holds secrets)
}
