import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one way the library calls a provider endpoint (discovery, JWK Set, token,
/// revocation, UserInfo): it
///
/// 1. applies ``SecureURLPolicy/checkEndpoint(_:_:issuer:)`` to the URL before anything is sent,
/// 2. never follows a redirect (a redirect would carry the request, and any secret in it,
///    past the URL policy),
/// 3. maps a transport failure to a typed ``OIDCError`` carrying the ``TransportError``,
/// 4. requires an accepted status (a 2xx range) or throws the caller's status error,
/// 5. bounds the body, and
/// 6. parses it: as a JSON object (``jsonObject(_:via:)``) or with the caller's strict parser.
///
/// Every error names the ``ProviderEndpoint`` in ``OIDCError/endpoint``.
package struct EndpointFetch: Sendable {
    /// The endpoint called; named in every error and checked by the URL policy.
    package var endpoint: ProviderEndpoint
    /// The provider's issuer for the URL policy; `nil`: the URL's own host decides.
    package var issuer: String?
    /// The code when no HTTP response arrived.
    package var transportFailure: OIDCError.Code
    /// The code for an unusable body: too large, not JSON, not an object.
    package var invalidBody: OIDCError.Code
    /// The code for an empty body where JSON is required (default: ``invalidBody``).
    package var emptyBody: OIDCError.Code
    /// The statuses accepted as success.
    package var accepted: ClosedRange<Int>
    /// The largest body accepted, in bytes.
    package var maxBodyBytes: Int
    /// The error for a status outside ``accepted`` (default: `statusCode` with the status).
    package var statusFailure: @Sendable (TransportResponse) -> OIDCError
    /// Whether an unusable body is quoted (a short, redacted excerpt) in the error's reason. `false` for fetches of
    /// URLs a user or a remote party chose (``RemoteFetchPolicy``): their answer may come from an internal service,
    /// and the reason reaches whoever sees the error; the caller hands ``diagnostic(for:)`` to the observer instead.
    package var quotesBody = true

    /// Bodies larger than this are refused unless a caller sets another bound (1 MiB).
    package static let defaultMaxBodyBytes = 1 << 20

    /// A fetch description.
    /// - Parameters:
    ///   - statusCode: the code of the default status error, used when `statusFailure` is `nil`.
    package init(
        endpoint: ProviderEndpoint, issuer: String?, transportFailure: OIDCError.Code, invalidBody: OIDCError.Code,
        emptyBody: OIDCError.Code? = nil, accepted: ClosedRange<Int> = 200...200,
        maxBodyBytes: Int = EndpointFetch.defaultMaxBodyBytes, statusCode: OIDCError.Code? = nil,
        statusFailure: (@Sendable (TransportResponse) -> OIDCError)? = nil
    ) {
        self.endpoint = endpoint
        self.issuer = issuer
        self.transportFailure = transportFailure
        self.invalidBody = invalidBody
        self.emptyBody = emptyBody ?? invalidBody
        self.accepted = accepted
        self.maxBodyBytes = maxBodyBytes
        let code = statusCode ?? invalidBody
        self.statusFailure =
            statusFailure ?? { response in
                OIDCError(code, "the \(endpoint) was answered with HTTP \(response.status)", httpStatus: response.status, endpoint: endpoint)
            }
    }

    /// Sends `request` under the rules above and returns the accepted, bounded response.
    package func send(_ request: TransportRequest, via transport: any HTTPTransport) async throws -> TransportResponse {
        try SecureURLPolicy.checkEndpoint(request.url, endpoint, issuer: issuer)
        var request = request
        request.followsRedirects = false
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch let error as TransportError {
            throw OIDCError(
                transportFailure, "\(request.method) \(endpoint) at \(request.url.host ?? "?") failed: \(error)",
                transportError: error, endpoint: endpoint)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw OIDCError(transportFailure, "\(request.method) \(endpoint) at \(request.url.host ?? "?") failed", endpoint: endpoint)
        }
        guard accepted.contains(response.status) else { throw statusFailure(response) }
        guard response.body.count <= maxBodyBytes else {
            throw OIDCError(
                invalidBody, "the \(endpoint) answered with a body larger than \(maxBodyBytes) bytes",
                httpStatus: response.status, endpoint: endpoint)
        }
        return response
    }

    /// Sends `request` and parses the accepted response with `parse` (a type's own strict parser).
    package func fetch<T>(
        _ request: TransportRequest, via transport: any HTTPTransport,
        parse: (TransportResponse) throws -> T
    ) async throws -> T {
        try parse(try await send(request, via: transport))
    }

    /// Sends `request` and returns the accepted response's body as a JSON object
    /// (strict parser: duplicate members, bad UTF-8 and excessive depth refused).
    package func jsonObject(_ request: TransportRequest, via transport: any HTTPTransport) async throws -> (object: JSONObject, response: TransportResponse) {
        let response = try await send(request, via: transport)
        return (try object(from: response), response)
    }

    /// The body of `response` as a JSON object, or the typed error naming the endpoint.
    package func object(from response: TransportResponse) throws -> JSONObject {
        guard !response.body.isEmpty else {
            throw OIDCError(
                emptyBody, "the \(endpoint) answered HTTP \(response.status) with an empty body",
                httpStatus: response.status, endpoint: endpoint)
        }
        do {
            return try JSONParser.parseObject(response.body, what: "the \(endpoint) response")
        } catch let error as JOSEError {
            guard quotesBody else {
                throw OIDCError(
                    invalidBody, "the \(endpoint) answered HTTP \(response.status) with a body that is not a JSON object",
                    httpStatus: response.status, endpoint: endpoint)
            }
            throw OIDCError(
                invalidBody,
                "the \(endpoint) answered HTTP \(response.status) with \(EndpointResponse.kind(of: response)): "
                    + EndpointResponse.excerpt(response.body), httpStatus: response.status, joseError: error, endpoint: endpoint)
        }
    }

    /// What an unusable answer was, for the observer only: its kind and a short, redacted excerpt.
    package func diagnostic(for response: TransportResponse) -> String {
        "HTTP \(response.status) with \(EndpointResponse.kind(of: response)): \(EndpointResponse.excerpt(response.body))"
    }
}

extension OIDCError {
    /// The same error, about `endpoint`.
    package func naming(_ endpoint: ProviderEndpoint) -> OIDCError {
        OIDCError(
            code, reason, oauthError: oauthError, httpStatus: httpStatus, joseError: joseError, transportError: transportError,
            endpoint: endpoint)
    }
}
