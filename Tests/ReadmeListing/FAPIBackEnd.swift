import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCSession

/// A back end facing a FAPI 2.0 provider: the same `OIDCClient`, configured for it.
struct FAPIBackEnd {
    let client: OIDCClient

    /// Both keys are the client's, shared by every replica: tokens are bound to the DPoP key.
    init(clientKeyPEM: String, dpopKeyPEM: String) async throws {
        var configuration = OIDCClient.Configuration()
        configuration.dpop = DPoPBinding(key: try DPoPKey(key: JWK(pem: dpopKeyPEM), algorithm: .es256))
        configuration.fapi2Profile = true  // PAR, PKCE, RFC 9207 iss, DPoP, private_key_jwt, algorithms: checked first
        client = try await OIDCClient.discover(
            issuer: "https://bank.example",
            authentication: .privateKeyJWT(
                clientID: "bank-app", key: JWK(pem: clientKeyPEM),
                algorithm: .es256),
            transport: URLSessionTransport(), configuration: configuration)
    }

    /// Pushed, as the profile requires (PAR, with dpop_jkt): the browser's URL carries only client_id and request_uri.
    func login() async throws -> PendingLogin {
        try await client.startLogin(LoginRequest(redirectURI: URL(string: "https://app.example.com/callback")!))
    }

    /// Tokens are DPoP-bound (token_type DPoP required); APIs get `Authorization: DPoP` + a fresh proof.
    func callback(_ pending: PendingLogin, query: String) async throws -> TransportResponse {
        let login = try await client.finishLogin(pending, callback: .parameters(query))
        let api = URL(string: "https://api.bank.example")!
        let user = try await client.session(tokens: login.tokens, configuration: .init(allowedOrigins: [api]))
        return try await user.send(TransportRequest(url: api.appendingPathComponent("accounts")))
    }
}
