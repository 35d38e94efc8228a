#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// The token client's authenticated form POST and response reading, for other endpoints
/// of the same authorization server (introspection in `OIDCResourceServer`): one code
/// path for client authentication, redirects refused, typed errors.
extension TokenClient {
    /// POSTs `parameters` form-encoded to `endpoint` with the client authentication
    /// (assertion audience: `endpoint`) and `headers`; never follows redirects.
    /// - Throws: ``OIDCError`` `.transport`, or a signing error of the client assertion.
    package func postForm(_ parameters: [(name: String, value: String)], to endpoint: URL, headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        try await post(parameters, to: endpoint, headers: headers)
    }

    /// A response body as a JSON object, or the typed error naming `what` endpoint.
    package static func endpointObject(from response: HTTPResponse, what: String) throws -> JSONObject {
        try EndpointResponse.object(from: response, what: what)
    }

    /// The typed error for a non-success response of `what` endpoint (OAuth errors recognised).
    package static func endpointError(for response: HTTPResponse, what: String) -> OIDCError {
        EndpointResponse.error(for: response, what: what)
    }
}
