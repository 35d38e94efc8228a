#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// The token client's authenticated form POST, for other endpoints of the same
/// authorization server (introspection in `OIDCResourceServer`): the same URL policy,
/// client authentication, redirect refusal and typed errors as the token endpoint.
extension TokenClient {
    /// POSTs `parameters` form-encoded to `endpoint` (named `name` in errors) with the client
    /// authentication (assertion audience: `endpoint`) and `headers`, through the library's
    /// endpoint fetch. A caller's `Accept` replaces the default.
    /// - Returns: the 200 response (body at most 1 MiB).
    /// - Throws: ``OIDCError`` `.insecureURL` before sending, `.transport`, a client-assertion
    ///   signing error, or for another status the OAuth error / status error naming `what`.
    package func postForm(_ parameters: [(name: String, value: String)], to endpoint: URL, name: ProviderEndpoint, what: String,
                          headers: HeaderFields = [:]) async throws -> TransportResponse {
        let request = try formRequest(parameters, to: endpoint, headers: headers, for: name)
        let fetch = EndpointFetch(endpoint: name, issuer: issuer, transportFailure: .transport, invalidBody: .invalidEndpointResponse,
                                  emptyBody: .emptyEndpointResponse,
                                  statusFailure: { EndpointResponse.error(for: $0, what: what).naming(name) })
        return try await fetch.send(request, via: transport)
    }

    /// A response body as a JSON object (strict parser), or the typed error naming the endpoint.
    package static func endpointObject(from response: TransportResponse, name: ProviderEndpoint) throws -> JSONObject {
        try EndpointFetch(endpoint: name, issuer: nil, transportFailure: .transport, invalidBody: .invalidEndpointResponse,
                          emptyBody: .emptyEndpointResponse).object(from: response)
    }
}
