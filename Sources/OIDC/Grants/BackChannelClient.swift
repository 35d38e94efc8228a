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
/// Every endpoint URL must be https (http only on loopback). Requests never
/// follow redirects. `description` never shows a secret or key.
public struct BackChannelClient: Sendable, CustomStringConvertible {
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

    /// The client-assertion audience for a call to `endpoint`.
    func audience(for endpoint: URL) throws -> URL {
        switch assertionAudience {
        case .endpointURL: return endpoint
        case .issuer:
            guard let url = URL(string: issuer) else { throw OIDCError(.invalidIssuerURL, "the issuer is not a URL") }
            return url
        }
    }

    /// POSTs `parameters` (form-encoded) with the client's authentication to
    /// `endpoint`; with a DPoP binding (and `proof` left on), with a proof and the one
    /// nonce retry. `what` names the endpoint in errors. The response is returned whatever its status.
    public func post(_ parameters: [(name: String, value: String)], to endpoint: URL, what: String, proof: Bool = true) async throws -> HTTPResponse {
        try SecureURLPolicy.check(endpoint, what: "the \(what) endpoint")
        let audience = try audience(for: endpoint)
        let build: @Sendable () throws -> HTTPRequest = { [authentication, clock, timeout] in
            var form = parameters
            var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
            try authentication.apply(to: &form, headers: &headers, audience: audience, now: clock())
            return HTTPRequest(method: "POST", url: endpoint, headers: headers, body: .bytes(Array(FormURLEncoding.encode(form).utf8)),
                               timeout: timeout)
        }
        if let dpop, proof { return try await dpop.send(role: .authorizationServer, transport: transport, request: build) }
        return try await DPoPBinding.transmit(try build(), transport: transport)
    }

    /// Calls the token endpoint with a grant's `parameters` and reads the tokens.
    ///
    /// The `token_type` must be `DPoP` when a DPoP binding is set (a sender-constrained
    /// token was asked for) and `Bearer` otherwise (case-insensitively); anything
    /// else is `.dpopTokenTypeMismatch` or `.unsupportedTokenType`.
    /// - Throws: ``OIDCError`` `.oauthError` (``OIDCError/oauthError`` has the provider's code), the endpoint errors of
    ///   ``post(_:to:what:)``, `.invalidTokenResponse`.
    public func requestTokens(_ parameters: [(name: String, value: String)], at tokenEndpoint: URL) async throws -> TokenResponse {
        let response = try await post(parameters, to: tokenEndpoint, what: "token")
        guard response.status == 200 else { throw EndpointResponse.error(for: response, what: "token") }
        let object = try EndpointResponse.object(from: response, what: "token")
        if object["error"] != nil { throw EndpointResponse.error(for: response, what: "token") }
        let tokens: TokenResponse
        do {
            tokens = try TokenResponse(json: object, receivedAt: clock())
        } catch let error as OIDCError {
            throw OIDCError(error.code, error.reason, httpStatus: response.status)
        }
        try Self.checkTokenType(tokens, dpopUsed: dpop != nil)
        return tokens
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
            throw OIDCError(OIDCError.Code(rawValue: "unsupported_token_type"), "token_type \"\(tokens.tokenType.prefix(32))\" is not supported")
        }
    }
}
