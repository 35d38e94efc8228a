import Foundation
import OIDC

/// A DPoP-bound token for the resource that refused `refusal`, then the call again with a fresh proof.
func callWithDPoP(_ url: URL, refusal: TransportResponse, configuration: ProtectedResourceAccess.Configuration) async throws -> TransportResponse {
    var configuration = configuration
    let binding = DPoPBinding(key: try DPoPKey.generate())
    configuration.clientConfiguration.dpop = binding
    let tokens = try await ProtectedResourceAccess.token(challengedBy: refusal, resource: url, configuration: configuration)
    return try await binding.send(TransportRequest(url: url), accessToken: tokens.accessToken, transport: try LibSSLTransport())
}
