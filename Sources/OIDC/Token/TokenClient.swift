#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// Talks to a provider's token endpoint: the `authorization_code` and
/// `refresh_token` grants, revocation (RFC 7009) and UserInfo.
///
/// Every request goes through the library's one endpoint fetch: the URL must pass
/// ``SecureURLPolicy/checkEndpoint(_:_:issuer:)`` (`https`; `http` only on loopback,
/// and with an ``issuer`` only for an `http` loopback issuer) before anything, the
/// code, verifier, client secret or token, is sent; redirects are never followed.
/// Every failure is an ``OIDCError``: the
/// provider's OAuth error (`oauth_error`, with ``OIDCError/oauthError``), an
/// unusable body, a 5xx, or a transport failure, each with the HTTP status and a
/// short excerpt that never contains a secret.
public struct TokenClient: Sendable {
    /// The token endpoint.
    public let tokenEndpoint: URL
    /// The provider's issuer, when known: endpoints may then use `http` only if the
    /// issuer is itself an `http` loopback issuer. `nil`: the endpoint's own host decides.
    public let issuer: String?
    /// How the client authenticates.
    public let authentication: ClientAuthentication
    /// The HTTP transport.
    public let transport: any HTTPTransport
    /// The clock used for `expires_at` and client assertions.
    public let clock: @Sendable () -> Date
    /// Seconds before a request is abandoned.
    public var timeout: TimeInterval = 30
    /// The `aud` of `private_key_jwt` / `client_secret_jwt` assertions (the same setting as
    /// ``BackChannelClient/assertionAudience``). ``ClientAssertionAudience/issuer`` needs a known ``issuer``.
    public var assertionAudience: ClientAssertionAudience
    /// The DPoP binding (RFC 9449): when set, every token request and UserInfo call carries a fresh
    /// proof (with the one nonce retry of ``DPoPBinding/send(role:accessToken:observer:transport:request:)``),
    /// UserInfo sends `Authorization: DPoP <token>`, and a token response must have `token_type` `DPoP`
    /// (a Bearer answer is `.dpopTokenTypeMismatch`). `nil`: no proofs, Bearer.
    public var dpop: DPoPBinding?
    /// Receives an ``OIDCEvent`` per token request (with its grant type), revocation, UserInfo call and
    /// DPoP nonce retry: the endpoint's origin, duration and outcome, never a token or secret. `nil` (default): none.
    public var observer: (any OIDCObserver)? = nil

    /// Creates a client. The endpoint is checked (``SecureURLPolicy``) before every request.
    /// - Parameters:
    ///   - tokenEndpoint: the provider's token endpoint.
    ///   - issuer: the provider's issuer, when known (see ``issuer``).
    ///   - authentication: how the client authenticates at the endpoint.
    ///   - transport: what sends the requests.
    ///   - assertionAudience: the `aud` of client assertions: the issuer (default; a client assertion then
    ///     fails with `.invalidTokenRequest` when `issuer` is `nil`) or the endpoint URL.
    ///   - clock: the time for `expires_at` and client assertions.
    public init(tokenEndpoint: URL, issuer: String? = nil, authentication: ClientAuthentication, transport: any HTTPTransport,
                assertionAudience: ClientAssertionAudience = .issuer, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.tokenEndpoint = tokenEndpoint
        self.issuer = issuer
        self.assertionAudience = assertionAudience
        self.authentication = authentication
        self.transport = transport
        self.clock = clock
    }

    /// Creates a client for a provider's metadata: its `token_endpoint` (its `mtls_endpoint_aliases` entry
    /// when `authentication` ``ClientAuthentication/usesMutualTLS`` and the provider publishes one), with
    /// its issuer for the URL policy.
    /// - Throws: ``OIDCError`` `.discoveryMissingField` without a `token_endpoint`;
    ///   `.insecureURL` / `.invalidIssuerURL` when any endpoint of the metadata fails
    ///   ``ProviderMetadata/checkEndpointSecurity()``.
    public init(metadata: ProviderMetadata, authentication: ClientAuthentication, transport: any HTTPTransport,
                assertionAudience: ClientAssertionAudience = .issuer, clock: @escaping @Sendable () -> Date = { Date() }) throws {
        try metadata.checkEndpointSecurity()
        // RFC 8705 §5: with mutual-TLS client authentication, the token endpoint's alias when published.
        let metadata = authentication.usesMutualTLS ? try metadata.withMutualTLSEndpointAliases() : metadata
        guard let tokenEndpoint = metadata.tokenEndpoint else {
            throw OIDCError(.discoveryMissingField, "the provider metadata has no token_endpoint", endpoint: .token)
        }
        self.init(tokenEndpoint: tokenEndpoint, issuer: metadata.issuer, authentication: authentication, transport: transport,
                  assertionAudience: assertionAudience, clock: clock)
    }

    static let standardParameters: Set<String> = ["grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "scope",
                                                  "client_id", "client_secret", "client_assertion", "client_assertion_type",
                                                  "token", "token_type_hint"]

    /// Exchanges an authorization code (with its PKCE verifier) for tokens.
    public func exchangeCode(_ code: String, redirectURI: URL, codeVerifier: String?,
                             additionalParameters: [(name: String, value: String)] = [], additionalHeaders: HeaderFields = [:]) async throws -> TokenResponse {
        var parameters: [(name: String, value: String)] = [("grant_type", "authorization_code"), ("code", code),
                                                            ("redirect_uri", redirectURI.absoluteString)]
        if let codeVerifier { parameters.append(("code_verifier", codeVerifier)) }
        return try await requestTokens(parameters, extra: additionalParameters, headers: additionalHeaders)
    }

    /// Uses a refresh token; `scope` may narrow the granted scope.
    public func refresh(_ refreshToken: String, scope: String? = nil,
                        additionalParameters: [(name: String, value: String)] = [], additionalHeaders: HeaderFields = [:]) async throws -> TokenResponse {
        var parameters: [(name: String, value: String)] = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scope { parameters.append(("scope", scope)) }
        return try await requestTokens(parameters, extra: additionalParameters, headers: additionalHeaders)
    }

    /// ``revoke(_:hint:endpoint:)`` without the event.
    func sendRevocation(_ token: String, hint: String?, endpoint: URL) async throws {
        var parameters: [(name: String, value: String)] = [("token", token)]
        if let hint { parameters.append(("token_type_hint", hint)) }
        _ = try await fetch(.revocation, accepted: 200...299).send(try formRequest(parameters, to: endpoint, headers: [:], for: .revocation),
                                                                  via: transport)
    }

    /// ``userInfo(accessToken:endpoint:)`` without the event.
    func sendUserInfo(accessToken: String, endpoint: URL) async throws -> JSONObject {
        try fetch(.userinfo).object(from: try await sendUserInfoRequest(accessToken: accessToken, endpoint: endpoint, accept: "application/json"))
    }

    /// The accepted UserInfo response, whatever its form (JSON, or a JWT for `accept: application/jwt`).
    package func sendUserInfoRequest(accessToken: String, endpoint: URL, accept: String) async throws -> TransportResponse {
        var headers: HeaderFields = ["Accept": accept, "User-Agent": "swift-oidc-toolkit"]
        guard let dpop else {
            headers["Authorization"] = "Bearer " + accessToken
            let request = TransportRequest(method: "GET", url: endpoint, headers: headers, timeout: timeout)
            return try await fetch(.userinfo).send(request, via: transport)
        }
        let request = TransportRequest(method: "GET", url: endpoint, headers: headers, timeout: timeout)
        let response = try await dpop.send(role: .resourceServer, accessToken: accessToken, observer: observer,
                                           transport: FetchingTransport(fetch: fetch(.userinfo, accepted: 100...599), transport: transport)) { request }
        return try Self.accepted(response, by: fetch(.userinfo))
    }

    /// The body of a UserInfo response as a JSON object, or the typed error naming the endpoint.
    package func userInfoObject(from response: TransportResponse) throws -> JSONObject {
        try fetch(.userinfo).object(from: response)
    }

    /// Checks that UserInfo's `sub` equals the ID Token's (OpenID Connect Core §5.3.2).
    public static func checkUserInfoSubject(_ userInfo: JSONObject, idTokenSubject: String?) throws {
        guard let sub = userInfo["sub"]?.stringValue, let expected = idTokenSubject, ConstantTime.equals(sub, expected) else {
            throw OIDCError(.userInfoSubjectMismatch, "UserInfo's \"sub\" does not equal the ID Token's \"sub\"")
        }
    }

    /// ``requestTokens(_:extra:headers:)`` without the event.
    func sendTokenRequest(_ parameters: [(name: String, value: String)], extra: [(name: String, value: String)],
                               headers: HeaderFields) async throws -> TokenResponse {
        for (name, _) in extra where Self.standardParameters.contains(name) {
            throw OIDCError(.invalidTokenRequest, "additional parameter \"\(name)\" would override a standard one")
        }
        let object: JSONObject, response: TransportResponse
        if let dpop {
            let form = parameters + extra
            response = try Self.accepted(
                try await dpop.send(role: .authorizationServer, observer: observer,
                                    transport: FetchingTransport(fetch: fetch(.token, accepted: 100...599), transport: transport)) {
                    try formRequest(form, to: tokenEndpoint, headers: headers, for: .token)
                }, by: fetch(.token))
            object = try fetch(.token).object(from: response)
        } else {
            (object, response) = try await fetch(.token).jsonObject(try formRequest(parameters + extra, to: tokenEndpoint, headers: headers, for: .token),
                                                                    via: transport)
        }
        if object["error"] != nil { throw EndpointResponse.error(for: response, what: "token").naming(.token) }
        let dpopUsed = dpop != nil
        return try await TokenResponse.tokenEndpointAnswer(object, status: response.status, receivedAt: clock(), sent: parameters) {
            if dpopUsed { try BackChannelClient.checkTokenType($0, dpopUsed: true) }  // without DPoP, OIDCClient checks the type
        }
    }

    /// `response` when `fetch` accepts its status (after a DPoP exchange that had to see every status), else its error.
    private static func accepted(_ response: TransportResponse, by fetch: EndpointFetch) throws -> TransportResponse {
        guard fetch.accepted.contains(response.status) else { throw fetch.statusFailure(response) }
        return response
    }

    /// The library's endpoint fetch for `endpoint` of this client's provider: OAuth errors
    /// mapped by ``EndpointResponse``, `transport` for no response.
    private func fetch(_ endpoint: ProviderEndpoint, accepted: ClosedRange<Int> = 200...200) -> EndpointFetch {
        let what = endpoint == .token ? "token" : endpoint == .userinfo ? "userinfo" : "revocation"
        return EndpointFetch(endpoint: endpoint, issuer: issuer, transportFailure: .transport, invalidBody: .invalidEndpointResponse,
                             emptyBody: .emptyEndpointResponse, accepted: accepted,
                             statusFailure: { EndpointResponse.error(for: $0, what: what).naming(endpoint) })
    }

    /// The form POST with the client authentication, built only once the endpoint passed
    /// the URL policy (a client assertion's `aud` from ``assertionAudience``).
    func formRequest(_ parameters: [(name: String, value: String)], to endpoint: URL, headers extra: HeaderFields,
                     for name: ProviderEndpoint) throws -> TransportRequest {
        try ClientFormPost(issuer: issuer, authentication: authentication, assertionAudience: assertionAudience, transport: transport,
                           clock: clock, timeout: timeout).request(parameters, to: endpoint, headers: extra, for: name)
    }
}
