#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// The client's direct calls to an authorization server's endpoints (PAR,
/// token, CIBA, device authorization): a form POST with the client's
/// authentication, a fresh client assertion on every attempt, and a DPoP proof
/// (with the nonce retry) when a ``DPoPBinding`` is set.
///
/// Every endpoint URL must pass the library's URL policy (https; http only on
/// loopback for a loopback issuer). Requests never follow redirects. `description`
/// never shows a secret or key.
public struct BackChannelClient: Sendable, CustomStringConvertible, CustomReflectable {
    /// The issuer identifier (the default client-assertion audience).
    public let issuer: String
    /// How the client authenticates.
    public let authentication: ClientAuthentication
    /// The `aud` of client assertions.
    public var assertionAudience: ClientAssertionAudience
    /// The HTTP transport.
    public let transport: any HTTPTransport
    /// The DPoP binding; `nil` sends no proofs (tokens are then Bearer only).
    public var dpop: DPoPBinding?
    /// The clock for assertions, proofs and `expires_at`.
    public let clock: @Sendable () -> Date
    /// Seconds before a request is abandoned.
    public var timeout: TimeInterval = 30
    /// Receives an ``OIDCEvent`` per token request (with its grant type), other provider call (PAR, CIBA,
    /// device authorization) and DPoP nonce retry; `nil` (default): none.
    public var observer: (any OIDCObserver)? = nil

    /// Creates a back-channel client.
    /// - Throws: ``OIDCError`` `.invalidIssuerURL` / `.insecureURL` for an issuer that is not https (or loopback http).
    public init(issuer: String, authentication: ClientAuthentication, assertionAudience: ClientAssertionAudience = .issuer,
                transport: any HTTPTransport, dpop: DPoPBinding? = nil, clock: @escaping @Sendable () -> Date = { Date() }) throws {
        _ = try SecureURLPolicy.check(issuer, what: "the issuer")
        self.issuer = issuer
        self.authentication = authentication
        self.assertionAudience = assertionAudience
        self.transport = transport
        self.dpop = dpop
        self.clock = clock
    }

    /// e.g. `BackChannelClient(private_key_jwt(client_id: "app"), aud: issuer, dpop: ES256)`.
    public var description: String {
        "BackChannelClient(\(authentication), aud: \(assertionAudience.rawValue), dpop: \(dpop.map { $0.key.algorithm.rawValue } ?? "none"))"
    }

    /// Issuer, authentication method, audience setting and DPoP algorithm: `dump` shows no secret or key.
    public var customMirror: Mirror {
        Mirror(self, children: ["issuer": issuer, "authentication": authentication.methodName, "assertionAudience": assertionAudience.rawValue,
                                "dpop": dpop.map { $0.key.algorithm.rawValue } ?? "none"])
    }

    /// POSTs `parameters` (form-encoded) with the client's authentication to
    /// `endpoint` (the provider's `name` endpoint) through the library's endpoint fetch
    /// (URL policy, no redirects, typed transport errors, bounded body); with a DPoP
    /// binding (and `proof` left on), with a proof and the one nonce retry. The
    /// response is returned whatever its status: see ``answer(_:from:accepting:)``.
    public func post(_ parameters: [(name: String, value: String)], to endpoint: URL, as name: ProviderEndpoint,
                     proof: Bool = true) async throws -> TransportResponse {
        try SecureURLPolicy.checkEndpoint(endpoint, name, issuer: issuer)
        let audience = try assertionAudience.audience(for: endpoint, issuer: issuer)
        let build: @Sendable () throws -> TransportRequest = { [authentication, clock, timeout] in
            var form = parameters
            var headers: HeaderFields = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
            try authentication.apply(to: &form, headers: &headers, now: clock()) { audience }
            return TransportRequest(method: "POST", url: endpoint, headers: headers, body: .bytes(Array(FormURLEncoding.encode(form).utf8)),
                               timeout: timeout)
        }
        let via = FetchingTransport(fetch: Self.fetch(name, issuer: issuer), transport: transport)
        return try await observedCall(name, to: endpoint) {
            if let dpop, proof { return try await dpop.send(role: .authorizationServer, observer: observer, transport: via, request: build) }
            return try await via.send(try build())
        }
    }

    /// The JSON object of an answer from the provider's `name` endpoint whose status is in
    /// `accepting`; otherwise the typed error (`.oauthError` with the provider's code, ...).
    public func answer(_ response: TransportResponse, from name: ProviderEndpoint, accepting: Set<Int> = [200]) throws -> JSONObject {
        guard accepting.contains(response.status) else { throw EndpointResponse.error(for: response, what: name.rawValue).naming(name) }
        let object = try Self.fetch(name, issuer: issuer).object(from: response)
        if object["error"] != nil { throw EndpointResponse.error(for: response, what: name.rawValue).naming(name) }
        return object
    }

    /// The endpoint fetch for the provider's `name` endpoint; every status is handed back
    /// (the DPoP nonce challenge and the callers' own status rules need the answer).
    static func fetch(_ name: ProviderEndpoint, issuer: String) -> EndpointFetch {
        EndpointFetch(endpoint: name, issuer: issuer, transportFailure: .transport, invalidBody: .invalidEndpointResponse,
                      emptyBody: .emptyEndpointResponse, accepted: 100...599)
    }

    /// Calls the token endpoint with a grant's `parameters` and reads the tokens.
    ///
    /// The `token_type` must be `DPoP` when a DPoP binding is set (a sender-constrained
    /// token was asked for) and `Bearer` otherwise (case-insensitively); anything
    /// else is `.dpopTokenTypeMismatch` or `unsupported_token_type`.
    /// - Throws: ``OIDCError`` `.oauthError` (``OIDCError/oauthError`` has the provider's code), the endpoint errors of
    ///   ``post(_:to:as:proof:)``, `.invalidTokenResponse`; for a `refresh_token` grant whose answer is refused
    ///   after the provider rotated the refresh token, `.refreshTokenSpent` (the grant is gone).
    public func requestTokens(_ parameters: [(name: String, value: String)], at tokenEndpoint: URL) async throws -> TokenResponse {
        try await observer.observe(.tokenRequest, origin: OIDCEvent.origin(of: tokenEndpoint),
                                   grantType: observer == nil ? nil : TokenClient.grantType(of: parameters)) {
            try await sendTokenRequest(parameters, at: tokenEndpoint)
        }
    }

    /// ``requestTokens(_:at:)`` without the event.
    func sendTokenRequest(_ parameters: [(name: String, value: String)], at tokenEndpoint: URL) async throws -> TokenResponse {
        let response = try await post(parameters, to: tokenEndpoint, as: .token)
        let object = try answer(response, from: .token)
        let dpopUsed = dpop != nil
        return try await TokenResponse.tokenEndpointAnswer(object, status: response.status, receivedAt: clock(), sent: parameters) {
            try Self.checkTokenType($0, dpopUsed: dpopUsed)
        }
    }

    /// `token_type` `DPoP` only when a proof was sent, `Bearer` only when none was (RFC 9449 §5, RFC 6749 §7.1).
    public static func checkTokenType(_ tokens: TokenResponse, dpopUsed: Bool) throws {
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
