import Foundation
import OIDC
import OIDCNetworking

/// A client that knows only the API's URL: the 401 names the resource's metadata, which names the issuer.
func tokenForResource(_ resource: String, trusting issuers: Set<String>, secret: String) async throws -> TokenResponse {
    let transport = URLSessionTransport()
    guard let url = URL(string: resource) else { throw OIDCError(.invalidIssuerURL, "not a URL") }
    let refusal = try await transport.send(TransportRequest(url: url))
    let metadata = try await ProtectedResourceDiscovery.fetch(challengedBy: refusal, resource: resource, transport: transport)
    let issuer = try metadata.authorizationServer(.trusted(issuers))
    let client = try await OIDCClient.authorizationServer(
        issuer: issuer,
        authentication: .clientSecretBasic(clientID: "svc", secret: secret),
        transport: transport)
    return try await client.tokenClient.clientCredentials(scope: metadata.scopesSupported?.first, resources: [url])
}
