import OIDC
import OIDCNetworking

struct PrintingObserver: OIDCObserver {
    func record(_ event: OIDCEvent) { print(event.kind, event.outcome, event.origin ?? "-", event.duration ?? .zero) }
}

func observedClient(issuer: String, authentication: ClientAuthentication) async throws -> OIDCClient {
    var configuration = OIDCClient.Configuration()
    configuration.observer = PrintingObserver()  // the client, its key cache, ID Tokens, its sessions
    return try await OIDCClient.discover(
        issuer: issuer, authentication: authentication,
        transport: URLSessionTransport(), configuration: configuration)
}
