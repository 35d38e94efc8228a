import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The client's one caller of its authorization server: every grant at the token endpoint, revocation,
/// UserInfo, and the PAR, CIBA and device authorization posts, each with the client's authentication.
///
/// Every request is built by the one authenticated form POST (``/OIDCCore/ClientAuthentication`` applied afresh on
/// every attempt, so a client assertion is never reused) after the URL passes ``/OIDCCore/SecureURLPolicy``:
/// `https`, or `http` on loopback only for an `http` loopback issuer. Redirects are never followed.
/// With a ``DPoPBinding`` every token request and UserInfo call carries a fresh proof, with the one
/// nonce retry of RFC 9449 §8, and a token response must have `token_type` `DPoP`.
///
/// Every failure is an ``/OIDCCore/OIDCError``: the provider's OAuth error (`oauth_error`, with ``/OIDCCore/OIDCError/oauthError``),
/// an unusable body, a 5xx or a transport failure, each with the HTTP status and a short excerpt that never
/// contains a secret. `description` and `dump` show no secret or key.
public struct TokenClient: Sendable, CustomStringConvertible, CustomReflectable {
    /// The token endpoint.
    public let tokenEndpoint: URL
    /// The provider's issuer, when known: endpoints may then use `http` only if the issuer is itself an
    /// `http` loopback issuer, and it is the default `aud` of client assertions.
    package let issuer: String?
    /// How the client authenticates.
    package let authentication: ClientAuthentication
    /// The HTTP transport.
    package let transport: any HTTPTransport
    /// The clock for `expires_at`, client assertions and decoupled-login deadlines.
    package let clock: @Sendable () -> Date
    /// Seconds before a request is abandoned.
    package let timeout: TimeInterval
    /// The `aud` of `private_key_jwt` and `client_secret_jwt` assertions.
    package let assertionAudience: ClientAssertionAudience
    /// Whether client assertions carry `typ: client-authentication+jwt` (``OIDCClient/Configuration/explicitlyTypedClientAssertions``).
    package var explicitlyTypedAssertions = false
    /// `token_type` values other than `Bearer` and `DPoP` the caller reads (lowercased, e.g. RFC 8693's `n_a`):
    /// an answer of such a type passes the DPoP and strict rules (``OIDCClient/Configuration/acceptedTokenTypes``).
    package var acceptedTokenTypes: Set<String> = []
    /// The DPoP binding (RFC 9449); `nil`: no proofs, Bearer tokens.
    package let dpop: DPoPBinding?
    /// Receives an ``OIDCEvent`` per call; `nil`: none.
    package let observer: (any OIDCObserver)?

    /// Creates a client for a token endpoint; the endpoint is checked against ``/OIDCCore/SecureURLPolicy`` before every request.
    /// - Parameters:
    ///   - tokenEndpoint: the provider's token endpoint.
    ///   - issuer: the provider's issuer, when known; it must be `https`, or `http` on loopback.
    ///   - authentication: how the client authenticates at the provider.
    ///   - transport: what sends the requests.
    ///   - assertionAudience: the `aud` of client assertions: the issuer (default, which needs `issuer`) or the endpoint URL.
    ///   - dpop: the DPoP binding every token request and UserInfo call is proven with; `nil` (default): Bearer.
    ///   - observer: receives one ``/OIDCCore/OIDCEvent`` per token request (with its grant type), other provider call,
    ///     revocation, UserInfo call and DPoP nonce retry, never a token or secret; `nil` (default): none.
    ///   - timeout: seconds before a request is abandoned.
    ///   - clock: the time for `expires_at`, client assertions and proofs.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidIssuerURL` or `.insecureURL` for an issuer that is not `https` or loopback `http`.
    public init(
        tokenEndpoint: URL, issuer: String? = nil, authentication: ClientAuthentication, transport: any HTTPTransport,
        assertionAudience: ClientAssertionAudience = .issuer, dpop: DPoPBinding? = nil, observer: (any OIDCObserver)? = nil,
        timeout: TimeInterval = 30, clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        if let issuer { _ = try SecureURLPolicy.check(issuer, what: "the issuer") }
        self.tokenEndpoint = tokenEndpoint
        self.issuer = issuer
        self.authentication = authentication
        self.transport = transport
        self.assertionAudience = assertionAudience
        self.dpop = dpop
        self.observer = observer
        self.timeout = timeout
        self.clock = clock
    }

    /// Creates a client for a provider's metadata: its `token_endpoint`, or its `mtls_endpoint_aliases` entry when
    /// `authentication` `ClientAuthentication.usesMutualTLS` and the provider publishes one, with its issuer.
    /// The other parameters are those of ``init(tokenEndpoint:issuer:authentication:transport:assertionAudience:dpop:observer:timeout:clock:)``.
    /// - Throws: ``/OIDCCore/OIDCError`` `.discoveryMissingField` without a `token_endpoint`; `.insecureURL` or `.invalidIssuerURL`
    ///   when an endpoint of the metadata fails `ProviderMetadata.checkEndpointSecurity()`.
    public init(
        metadata: ProviderMetadata, authentication: ClientAuthentication, transport: any HTTPTransport,
        assertionAudience: ClientAssertionAudience = .issuer, dpop: DPoPBinding? = nil, observer: (any OIDCObserver)? = nil,
        timeout: TimeInterval = 30, clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        try metadata.checkEndpointSecurity()
        // RFC 8705 §5: with mutual-TLS client authentication, the token endpoint's alias when published.
        let metadata = authentication.usesMutualTLS ? try metadata.withMutualTLSEndpointAliases() : metadata
        guard let tokenEndpoint = metadata.tokenEndpoint else {
            throw OIDCError(.discoveryMissingField, "the provider metadata has no token_endpoint", endpoint: .token)
        }
        try self.init(
            tokenEndpoint: tokenEndpoint, issuer: metadata.issuer, authentication: authentication, transport: transport,
            assertionAudience: assertionAudience, dpop: dpop, observer: observer, timeout: timeout, clock: clock)
    }

    /// e.g. `TokenClient(private_key_jwt(client_id: "app"), aud: issuer, dpop: ES256)`.
    public var description: String {
        "TokenClient(\(authentication), aud: \(assertionAudience.rawValue), dpop: \(dpop.map { $0.key.algorithm.rawValue } ?? "none"))"
    }

    /// Endpoint, issuer, authentication method, audience setting and DPoP algorithm: `dump` shows no secret or key.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "tokenEndpoint": tokenEndpoint, "issuer": issuer as Any, "authentication": authentication.methodName,
                "assertionAudience": assertionAudience.rawValue, "dpop": dpop.map { $0.key.algorithm.rawValue } ?? "none",
            ])
    }

    /// How a token response's `token_type` is checked.
    package enum TokenTypeRule: Sendable {
        /// `DPoP` with a binding; without one, the caller checks (``OIDCClient`` against its accepted types).
        case dpopOnly
        /// `DPoP` with a binding and `Bearer` without (RFC 9449 §5, RFC 6749 §7.1): the decoupled grants' rule.
        case strict
    }

    static let standardParameters: Set<String> = [
        "grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "scope",
        "client_id", "client_secret", "client_assertion", "client_assertion_type",
        "token", "token_type_hint",
    ]

    /// One token request without the event: `parameters` then `extra` (which may not set a standard parameter),
    /// through ``post(_:to:as:headers:proof:)``, read by the one token-answer reader.
    func sendTokenRequest(
        _ parameters: [(name: String, value: String)], extra: [(name: String, value: String)],
        headers: HeaderFields, rule: TokenTypeRule, readsRetryAfter: Bool = false
    ) async throws -> TokenResponse {
        for (name, _) in extra where Self.standardParameters.contains(name) {
            throw OIDCError(.invalidTokenRequest, "additional parameter \"\(name)\" would override a standard one")
        }
        let response = try await post(parameters + extra, to: tokenEndpoint, as: .token, headers: headers)
        if readsRetryAfter, response.status == 503 || response.status == 429, let value = response.headers["Retry-After"] {
            throw RetryAfter(seconds: try RetryAfter.seconds(value, now: clock()), status: response.status)
        }
        let object = try answer(response, from: .token)
        let dpopUsed = dpop != nil
        let readable = acceptedTokenTypes.subtracting(["bearer", "dpop"])
        return try await TokenResponse.tokenEndpointAnswer(object, status: response.status, receivedAt: clock(), sent: parameters) {
            if readable.contains($0.tokenType.lowercased()) { return }  // read by the caller, never sent by a session
            if dpopUsed || rule == .strict { try Self.checkTokenType($0, dpopUsed: dpopUsed) }
        }
    }

    /// POSTs `parameters` with the client's authentication to `endpoint` (the provider's `name` endpoint) through the
    /// library's endpoint fetch: URL policy first, no redirects, typed transport errors, bounded body. With a DPoP
    /// binding and `proof` on, with a proof and the one nonce retry. The response is returned whatever its status:
    /// see ``answer(_:from:accepting:)``. A call to an endpoint other than the token endpoint is recorded as
    /// ``OIDCEvent/Kind/providerCall``.
    package func post(
        _ parameters: [(name: String, value: String)], to endpoint: URL, as name: ProviderEndpoint,
        headers: HeaderFields = [:], proof: Bool = true
    ) async throws -> TransportResponse {
        let form = formPost
        let build: @Sendable () throws -> TransportRequest = { try form.request(parameters, to: endpoint, headers: headers, for: name) }
        let via = FetchingTransport(fetch: fetch(name), transport: transport)
        return try await observedCall(name, to: endpoint) {
            if let dpop, proof { return try await dpop.send(role: .authorizationServer, observer: observer, transport: via, request: build) }
            return try await via.send(try build())
        }
    }

    /// The JSON object of an answer from the provider's `name` endpoint whose status is in `accepting`;
    /// otherwise the typed error (`.oauthError` with the provider's code, a status error naming the endpoint).
    package func answer(_ response: TransportResponse, from name: ProviderEndpoint, accepting: Set<Int> = [200]) throws -> JSONObject {
        guard accepting.contains(response.status) else { throw EndpointResponse.error(for: response, what: Self.what(name)).naming(name) }
        let object = try fetch(name).object(from: response)
        if object["error"] != nil { throw EndpointResponse.error(for: response, what: Self.what(name)).naming(name) }
        return object
    }

    /// The one authenticated form POST (OIDCCore's), with this client's settings.
    var formPost: ClientFormPost {
        var form = ClientFormPost(
            issuer: issuer, authentication: authentication, assertionAudience: assertionAudience, transport: transport,
            clock: clock, timeout: timeout)
        form.explicitlyTypedAssertions = explicitlyTypedAssertions
        return form
    }

    /// How errors name the endpoint: `token`, `userinfo`, `revocation`, else its metadata member name.
    static func what(_ name: ProviderEndpoint) -> String {
        switch name {
        case .token: return "token"
        case .userinfo: return "userinfo"
        case .revocation: return "revocation"
        default: return name.rawValue
        }
    }

    /// The endpoint fetch for the provider's `name` endpoint; every status is handed back
    /// (the DPoP nonce challenge and the callers' own status rules need the answer).
    func fetch(_ name: ProviderEndpoint) -> EndpointFetch {
        EndpointFetch(
            endpoint: name, issuer: issuer, transportFailure: .transport, invalidBody: .invalidEndpointResponse,
            emptyBody: .emptyEndpointResponse, accepted: 100...599)
    }

    /// `token_type` `DPoP` only when a proof was sent, `Bearer` only when none was (RFC 9449 §5, RFC 6749 §7.1).
    package static func checkTokenType(_ tokens: TokenResponse, dpopUsed: Bool) throws {
        let type = tokens.tokenType.lowercased()
        switch (dpopUsed, type) {
        case (true, "dpop"), (false, "bearer"): return
        case (true, "bearer"):
            throw OIDCError(.dpopTokenTypeMismatch, "a DPoP-bound token was asked for but the token endpoint issued a Bearer token")
        case (false, "dpop"):
            throw OIDCError(.dpopTokenTypeMismatch, "the token endpoint issued a DPoP token although no DPoP proof was sent")
        default:
            throw OIDCError(.unsupportedTokenType, "token_type \"\(tokens.tokenType.prefix(32))\" is not supported")
        }
    }
}

/// Sends through an ``EndpointFetch`` (so a DPoP retry goes through the same rules).
struct FetchingTransport: HTTPTransport {
    let fetch: EndpointFetch
    let transport: any HTTPTransport
    func send(_ request: TransportRequest) async throws -> TransportResponse { try await fetch.send(request, via: transport) }
}
