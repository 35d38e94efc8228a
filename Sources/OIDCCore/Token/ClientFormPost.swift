import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A client's authenticated form POST to one of its authorization server's endpoints: the URL policy first,
/// then the client authentication (a fresh assertion each time), never a redirect, typed errors.
///
/// The one copy behind the relying party's token calls and the resource server's introspection calls.
package struct ClientFormPost: Sendable {
    /// The provider's issuer, when known: endpoints may use `http` only for an `http` loopback issuer.
    package let issuer: String?
    /// How the client authenticates.
    package let authentication: ClientAuthentication
    /// The `aud` of client assertions.
    package var assertionAudience: ClientAssertionAudience
    /// Whether client assertions carry `typ: client-authentication+jwt` (draft-ietf-oauth-rfc7523bis §4); else `JWT`.
    package var explicitlyTypedAssertions = false
    /// What sends the requests.
    package let transport: any HTTPTransport
    /// The time for client assertions.
    package let clock: @Sendable () -> Date
    /// Seconds before a request is abandoned.
    package var timeout: TimeInterval

    package init(
        issuer: String?, authentication: ClientAuthentication, assertionAudience: ClientAssertionAudience,
        transport: any HTTPTransport, clock: @escaping @Sendable () -> Date, timeout: TimeInterval = 30
    ) {
        self.issuer = issuer
        self.authentication = authentication
        self.assertionAudience = assertionAudience
        self.transport = transport
        self.clock = clock
        self.timeout = timeout
    }

    /// The form POST with the client authentication, built only once the endpoint passed the URL policy.
    /// A caller's `Accept` replaces the default; its other header fields are added when not already set.
    package func request(
        _ parameters: [(name: String, value: String)], to endpoint: URL, headers extra: HeaderFields,
        for name: ProviderEndpoint
    ) throws -> TransportRequest {
        try SecureURLPolicy.checkEndpoint(endpoint, name, issuer: issuer)
        var parameters = parameters
        var headers: HeaderFields = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
        try authentication.apply(to: &parameters, headers: &headers, now: clock(), explicitlyTyped: explicitlyTypedAssertions) {
            try assertionAudience.audience(for: endpoint, issuer: issuer)
        }
        for field in extra where field.name.lowercased() == "accept" { headers["Accept"] = field.value }  // e.g. a JWT introspection answer
        for field in extra where headers[field.name] == nil { headers.add(field.name, field.value) }
        let body = Array(FormURLEncoding.encode(parameters).utf8)
        return TransportRequest(method: "POST", url: endpoint, headers: headers, body: .bytes(body), timeout: timeout)
    }

    /// POSTs `parameters` to `endpoint` (named `name` in errors) and answers the 200 response (body at most 1 MiB).
    /// - Throws: ``OIDCError`` `.insecureURL` before sending, `.transport`, a client-assertion signing error,
    ///   or for another status the OAuth error / status error naming `what`.
    package func post(
        _ parameters: [(name: String, value: String)], to endpoint: URL, name: ProviderEndpoint, what: String,
        headers: HeaderFields = [:]
    ) async throws -> TransportResponse {
        let request = try request(parameters, to: endpoint, headers: headers, for: name)
        let fetch = EndpointFetch(
            endpoint: name, issuer: issuer, transportFailure: .transport, invalidBody: .invalidEndpointResponse,
            emptyBody: .emptyEndpointResponse,
            statusFailure: { EndpointResponse.error(for: $0, what: what).naming(name) })
        return try await fetch.send(request, via: transport)
    }

    /// A response body as a JSON object (strict parser), or the typed error naming the endpoint.
    package static func object(from response: TransportResponse, name: ProviderEndpoint) throws -> JSONObject {
        try EndpointFetch(
            endpoint: name, issuer: nil, transportFailure: .transport, invalidBody: .invalidEndpointResponse,
            emptyBody: .emptyEndpointResponse
        ).object(from: response)
    }
}
