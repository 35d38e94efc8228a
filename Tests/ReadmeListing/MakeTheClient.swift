import OIDC
import OIDCNetworking

func makeClient(secret: String) async throws -> OIDCClient {
    try await OIDCClient.discover(
        issuer: "https://idp.example.com",
        authentication: .clientSecretBasic(clientID: "my-app", secret: secret),
        transport: URLSessionTransport())
}
