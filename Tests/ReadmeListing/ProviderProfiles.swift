import OIDC
import OIDCNetworking

func makeEntraClient(secret: String) async throws -> OIDCClient {
    var configuration = OIDCClient.Configuration()
    // Only these organizations' users; every other tenant is refused (tenant_not_allowed).
    configuration.profile = .entra(try .allowList(["72f988bf-86f1-41af-91ab-2d7cd011db47"]))
    return try await OIDCClient.discover(
        issuer: "https://login.microsoftonline.com/organizations/v2.0",
        authentication: .clientSecretPost(clientID: "my-app", secret: secret),
        transport: URLSessionTransport(), configuration: configuration)
}
