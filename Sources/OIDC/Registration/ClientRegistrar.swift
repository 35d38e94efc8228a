import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Registers clients at a provider's `registration_endpoint` (RFC 7591, OpenID Connect Dynamic Client
/// Registration 1.0) and manages them through their `registration_client_uri` (RFC 7592: read,
/// update, delete), with the registration access token the provider issued.
///
/// Every call goes through the library's one endpoint fetch: the URL rule (https; http only on
/// loopback for a loopback issuer), no redirects followed, a bounded, strictly parsed answer. A
/// refusal is ``/OIDCCore/OIDCError`` `.registrationRefused` with the provider's error code in
/// ``/OIDCCore/OIDCError/oauthError`` (RFC 7591 §3.2.2). The initial and registration access tokens are sent
/// only in the `Authorization` header and never appear in an error or an event.
public struct ClientRegistrar: Sendable {
    /// The provider's `registration_endpoint`.
    package let registrationEndpoint: URL
    /// The provider's issuer, when known (the URL rule of every call).
    package let issuer: String?
    /// The HTTP transport.
    package let transport: any HTTPTransport
    /// Receives one ``OIDCEvent/Kind/providerCall`` event per call.
    package let observer: (any OIDCObserver)?

    /// A registrar for the provider `metadata` describes.
    /// - Parameters:
    ///   - metadata: the provider's metadata (discovery); its `registration_endpoint` is used.
    ///   - transport: the HTTP transport.
    ///   - observer: receives one event per call.
    /// - Throws: ``/OIDCCore/OIDCError`` `.registrationNotSupported` when the provider publishes no `registration_endpoint`;
    ///   `.insecureURL` when it is not https (http only for a loopback issuer).
    public init(metadata: ProviderMetadata, transport: any HTTPTransport, observer: (any OIDCObserver)? = nil) throws {
        guard let endpoint = metadata.registrationEndpoint else {
            throw OIDCError(.registrationNotSupported, "the provider publishes no registration_endpoint", endpoint: .registration)
        }
        try self.init(registrationEndpoint: endpoint, issuer: metadata.issuer, transport: transport, observer: observer)
    }

    /// A registrar for a registration endpoint known without discovery.
    /// - Parameters:
    ///   - registrationEndpoint: the endpoint.
    ///   - issuer: the provider's issuer, when known; `nil`: the URL's own host decides (http on loopback only).
    ///   - transport: the HTTP transport.
    ///   - observer: receives one event per call.
    /// - Throws: ``/OIDCCore/OIDCError`` `.insecureURL` / `.invalidIssuerURL` for the endpoint.
    public init(registrationEndpoint: URL, issuer: String?, transport: any HTTPTransport, observer: (any OIDCObserver)? = nil) throws {
        try SecureURLPolicy.checkEndpoint(registrationEndpoint, .registration, issuer: issuer)
        self.registrationEndpoint = registrationEndpoint
        self.issuer = issuer
        self.transport = transport
        self.observer = observer
    }

    /// Registers a client (RFC 7591 §3.1).
    /// - Parameters:
    ///   - metadata: the client's metadata; `jwks` is sent with public members only.
    ///   - initialAccessToken: the initial access token, when the provider requires one (sent as a bearer token).
    /// - Returns: the provider's answer.
    /// - Throws: ``/OIDCCore/OIDCError`` `.registrationRefused` with the provider's code in ``/OIDCCore/OIDCError/oauthError``,
    ///   `.invalidClientMetadata` before anything is sent, `.registrationTransportFailed`.
    public func register(_ metadata: ClientMetadata, initialAccessToken: String? = nil) async throws -> ClientRegistration {
        if let keys = metadata.jwks, keys.contains(where: { $0.keyType == .oct }) {
            throw OIDCError(.invalidClientMetadata, "jwks holds a symmetric key: only public keys are registered")
        }
        let request = try jsonRequest(.post, url: registrationEndpoint, body: metadata.jsonObject(), bearer: initialAccessToken)
        return try await call(request, endpoint: .registration, accepted: 200...201, expectedClientID: nil, previous: nil)
    }

    /// Reads a registered client's current configuration (RFC 7592 §2.1).
    /// - Parameter registration: the registration (its `registration_client_uri` and `registration_access_token`).
    /// - Returns: the provider's current answer; the registration access token is kept when the provider does not send it again.
    /// - Throws: ``/OIDCCore/OIDCError`` `.registrationNotSupported` (nothing to manage the client with), `.registrationRefused`
    ///   (e.g. `invalid_token`), `.registrationInvalidResponse` (another `client_id`), `.registrationTransportFailed`.
    public func read(_ registration: ClientRegistration) async throws -> ClientRegistration {
        let (url, token) = try management(registration)
        var request = TransportRequest(url: url, headers: ["Accept": "application/json"])
        request.headers["Authorization"] = "Bearer " + token
        return try await call(
            request, endpoint: .registrationClient, accepted: 200...200, expectedClientID: registration.clientID,
            previous: registration)
    }

    /// Replaces a registered client's metadata (RFC 7592 §2.2): `client_id` (and `client_secret` when one
    /// was issued) are sent with the whole new metadata, as the RFC requires.
    /// - Parameters:
    ///   - registration: the registration to update.
    ///   - metadata: the new metadata (all of it: members left out may be reset by the provider).
    /// - Returns: the provider's answer (it may rotate the secret or the registration access token).
    /// - Throws: as ``read(_:)``, and `.invalidClientMetadata` as ``register(_:initialAccessToken:)``.
    public func update(_ registration: ClientRegistration, to metadata: ClientMetadata) async throws -> ClientRegistration {
        if let keys = metadata.jwks, keys.contains(where: { $0.keyType == .oct }) {
            throw OIDCError(.invalidClientMetadata, "jwks holds a symmetric key: only public keys are registered")
        }
        let (url, token) = try management(registration)
        var body = metadata.jsonObject()
        body["client_id"] = .string(registration.clientID)
        if let secret = registration.clientSecret { body["client_secret"] = .string(secret) }
        let request = try jsonRequest(.put, url: url, body: body, bearer: token)
        return try await call(
            request, endpoint: .registrationClient, accepted: 200...200, expectedClientID: registration.clientID,
            previous: registration)
    }

    /// Deletes a registered client (RFC 7592 §2.3); the provider answers 204.
    /// - Parameter registration: the registration to delete.
    /// - Throws: ``/OIDCCore/OIDCError`` `.registrationNotSupported`, `.registrationRefused`, `.registrationTransportFailed`.
    public func delete(_ registration: ClientRegistration) async throws {
        let (url, token) = try management(registration)
        var request = TransportRequest(method: .delete, url: url)
        request.headers["Authorization"] = "Bearer " + token
        let fetch = self.fetch(.registrationClient, accepted: 200...204)
        _ = try await observer.observe(.providerCall, origin: OIDCEvent.origin(of: url)) {
            try await fetch.send(request, via: transport)
        }
    }

    // MARK: -

    private func management(_ registration: ClientRegistration) throws -> (URL, String) {
        guard let url = registration.registrationClientURI, let token = registration.registrationAccessToken, !token.isEmpty else {
            throw OIDCError(
                .registrationNotSupported, "the registration has no registration_client_uri and registration_access_token (RFC 7592)",
                endpoint: .registrationClient)
        }
        return (url, token)
    }

    private func jsonRequest(_ method: TransportRequest.Method, url: URL, body: JSONObject, bearer: String?) throws -> TransportRequest {
        var request = TransportRequest(
            method: method, url: url, headers: ["Content-Type": "application/json", "Accept": "application/json"],
            body: .bytes(Array(body.jsonString().utf8)))
        if let bearer, !bearer.isEmpty { request.headers["Authorization"] = "Bearer " + bearer }
        return request
    }

    private func fetch(_ endpoint: ProviderEndpoint, accepted: ClosedRange<Int>) -> EndpointFetch {
        EndpointFetch(
            endpoint: endpoint, issuer: issuer, transportFailure: .registrationTransportFailed,
            invalidBody: .registrationInvalidResponse, accepted: accepted
        ) { response in
            let error = EndpointResponse.error(for: response, what: "registration")
            if error.oauthError == nil, response.status == 401 || response.status == 403 {
                // No OAuth error object (glewlwyd answers an empty 401): the access token was missing or refused.
                return OIDCError(
                    .registrationRefused,
                    "the \(endpoint) refused the request (HTTP \(response.status)): "
                        + "the initial or registration access token is missing or not accepted",
                    httpStatus: response.status, endpoint: endpoint)
            }
            if let oauth = error.oauthError {
                return OIDCError(.registrationRefused, error.reason, oauthError: oauth, httpStatus: response.status, endpoint: endpoint)
            }
            return error.naming(endpoint)
        }
    }

    private func call(
        _ request: TransportRequest, endpoint: ProviderEndpoint, accepted: ClosedRange<Int>, expectedClientID: String?,
        previous: ClientRegistration?
    ) async throws -> ClientRegistration {
        let fetch = self.fetch(endpoint, accepted: accepted)
        let issuer = self.issuer
        return try await observer.observe(.providerCall, origin: OIDCEvent.origin(of: request.url)) {
            var (object, _) = try await fetch.jsonObject(request, via: transport)
            if let expectedClientID, object["client_id"]?.stringValue != expectedClientID {
                throw OIDCError(.registrationInvalidResponse, "the \(endpoint) answered for another client_id", endpoint: endpoint)
            }
            // RFC 7592 §3: members the answer leaves out (the access token, the client URI, the secret) stay as they were.
            if let previous {
                for name in ["registration_access_token", "registration_client_uri", "client_secret"] where object[name] == nil {
                    if let value = previous.answer[name] { object[name] = value }
                }
            }
            return try ClientRegistration(answer: object, issuer: issuer)
        }
    }
}
