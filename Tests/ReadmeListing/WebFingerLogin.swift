import OIDC
import OIDCNetworking

/// The provider of an identifier the user typed. Only public hosts on port 443 by default; your own
/// provider on an internal host is admitted by name.
func clientForTypedIdentifier(_ typed: String) async throws -> OIDCClient {
    let policy = RemoteFetchPolicy(allowedHosts: [try .init("idp.internal:443")])
    return try await OIDCClient.discover(
        webFinger: typed, authentication: .none(clientID: "my-app"),
        transport: URLSessionTransport(), fetchPolicy: policy)
}
