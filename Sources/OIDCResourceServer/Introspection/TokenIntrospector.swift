import JOSE
import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Asks an authorization server about a token (RFC 7662), authenticating as the
/// resource server's client, with an optional ``IntrospectionCache``; an active answer is a ``TokenIntrospection``.
///
/// ``ResourceGuard`` validates access tokens through it (`Configuration.tokens = .introspection(_:)`): it reads
/// `Authorization` and `DPoP` itself and enforces the answer's `cnf` (RFC 9449 §6.2, RFC 8705 §3.2) with the rule
/// the JWT path applies, and answers a failure with the JWT path's refusals. ``introspect(_:hint:)`` asks about any token.
///
/// When `jwtResponse` is set, the request asks for the JWT form
/// (`Accept: application/token-introspection+jwt`, RFC 9701) and such an answer is verified:
/// signature with the issuer's keys, `typ` `token-introspection+jwt`, `iss` = the issuer,
/// `aud` containing the resource server's identifier (its client id by default), `iat` present, and a `token_introspection` object;
/// an answer encrypted to the resource server (RFC 9701 §5) is decrypted first with ``JWTResponse/decryptionKeys``.
/// A JWT answer without that configuration is refused. With it, a plain JSON answer (which nothing
/// authenticates beyond TLS) is refused too, as `.unsignedIntrospectionResponse`, unless the
/// settings name the opt-out ``JWTResponse/Requirement/preferredButJSONAccepted``.
public struct TokenIntrospector: Sendable, CustomReflectable {
    /// How the JWT form of the answer is verified.
    public struct JWTResponse: Sendable {
        /// The issuer identifier the JWT's `iss` must equal.
        public let issuer: String
        /// The issuer's keys.
        public let keys: IssuerKeys
        /// The value the JWT's `aud` must contain: this resource server's identifier
        /// (`nil`: its client id; glewlwyd 2.7.5 puts the introspected token's audience there).
        public let audience: String?
        /// Whether a plain JSON answer is refused (``Requirement/required``, the default) or accepted.
        public let requirement: Requirement
        /// The resource server's decryption keys, for an answer encrypted to it (RFC 9701 §5: signed, then
        /// encrypted); default none: an encrypted answer is refused.
        public var decryptionKeys: JWEDecryptionKeys = .none
        /// The registered `introspection_encrypted_response_alg`/`_enc`: when set, a signed answer that is
        /// not encrypted is refused, and the JWE must use exactly these algorithms.
        public var encryption: ResponseEncryption? = nil

        /// Whether the signed form is the only acceptable answer once it is configured.
        public enum Requirement: Sendable, Hashable {
            /// Only a JWT answer that verifies is accepted; a plain JSON answer is refused with
            /// `.unsignedIntrospectionResponse` (no downgrade from a signed answer to an unsigned one).
            case required
            /// A JWT answer is asked for and verified when it comes, but a plain JSON answer is
            /// still accepted unverified. An explicit opt-out, for a provider that answers JWT only
            /// for some clients or tokens.
            case preferredButJSONAccepted
        }

        /// Creates the verification settings.
        /// - Parameters:
        ///   - issuer: the introspection JWT's `iss` must equal this exactly.
        ///   - keys: the authorization server's keys the JWT is verified with.
        ///   - audience: the `aud` the JWT must name, when set.
        ///   - requirement: `.required` (default): a plain JSON answer is refused;
        ///     `.preferredButJSONAccepted` is the named opt-out that accepts it.
        public init(issuer: String, keys: IssuerKeys, audience: String? = nil, requirement: Requirement = .required) {
            self.issuer = issuer
            self.keys = keys
            self.audience = audience
            self.requirement = requirement
        }
    }

    /// Which audience an active token must be for; there is no default, so skipping the check is
    /// always spelled out (``anyAudience``).
    public enum AudienceRule: Sendable, Hashable {
        /// An active token's `aud`, when the answer has one, must contain this value (this resource
        /// server's identifier); otherwise the token is refused with `.audienceMismatch`.
        case contains(String)
        /// No audience check: any token the provider calls active passes, whoever it was issued for.
        /// An explicit opt-out, for a provider whose tokens all serve this resource server.
        case anyAudience
    }

    /// The introspection endpoint.
    package let endpoint: URL
    /// The client id this resource server introspects as.
    package var clientID: String { client.authentication.clientID }
    /// The authenticated form POST to the endpoint (the client authentication and transport).
    let client: ClientFormPost
    /// JWT answer verification, if wanted.
    package let jwtResponse: JWTResponse?
    /// The cache, if any.
    package let cache: IntrospectionCache?
    /// The audience rule ``validate(_:requiredScopes:)`` applies.
    package let audience: AudienceRule
    /// Allowed clock skew for the JWT answer and the active token's `exp`/`nbf`, as the checks
    /// use it: NaN or negative counts as 0, above one day as one day (the JWT validation's rule).
    package let leeway: TimeInterval
    /// The DPoP proof rules (with their replay cache) for tokens presented with the `DPoP` scheme.
    package let proofs: DPoPProofValidator

    /// Creates an introspector.
    /// - Parameters:
    ///   - endpoint: the authorization server's introspection endpoint (RFC 7662).
    ///   - issuer: the provider's issuer, when known: `http` is then allowed only for an
    ///     `http` loopback issuer (`SecureURLPolicy.checkEndpoint(_:_:issuer:)`).
    ///   - authentication: how this resource server authenticates at the endpoint.
    ///   - transport: what sends the requests.
    ///   - audience: `.contains(identifier)` for this resource server, or the explicit `.anyAudience`.
    ///   - jwtResponse: ask for and verify a JWT answer (RFC 9701), refusing plain JSON unless the
    ///     settings say `.preferredButJSONAccepted`; or `nil` for JSON.
    ///   - cache: where answers are kept (never past the token's `exp`), or `nil`.
    ///   - leeway: allowed clock skew, in seconds.
    ///   - clock: the current time.
    ///   - proofs: the DPoP proof rules; `nil` (the default) is a ``DPoPProofValidator`` with this `leeway` and
    ///     `clock` and its own ``/OIDCCore/InMemoryReplayCache`` (replay protection on).
    ///   - observer: receives one event per introspection call and per token validated; `nil` (default): none.
    /// - Throws: ``/OIDCCore/OIDCError`` `.insecureURL` for an endpoint the URL policy refuses.
    public init(
        endpoint: URL, issuer: String? = nil, authentication: ClientAuthentication, transport: any HTTPTransport,
        audience: AudienceRule, jwtResponse: JWTResponse? = nil, cache: IntrospectionCache? = nil,
        leeway: TimeInterval = 60, clock: @escaping @Sendable () -> Date = { Date() },
        proofs: DPoPProofValidator? = nil, observer: (any OIDCObserver)? = nil
    ) throws {
        self.observer = observer
        try SecureURLPolicy.checkEndpoint(endpoint, .introspection, issuer: issuer)
        self.endpoint = endpoint
        self.client = ClientFormPost(issuer: issuer, authentication: authentication, assertionAudience: .issuer, transport: transport, clock: clock)
        self.jwtResponse = jwtResponse
        self.cache = cache
        self.audience = audience
        self.leeway = Leeway.effective(leeway)
        self.proofs = proofs ?? DPoPProofValidator(leeway: leeway, clock: clock)
    }

    /// Receives one ``OIDC/OIDCEvent`` per introspection call (``OIDC/OIDCEvent/Kind/introspection``) and per token validated (``OIDC/OIDCEvent/Kind/accessTokenValidation``: accepted, or refused with the error's code);
    /// `nil` (default): none, and no work beyond a `nil` check.
    package let observer: (any OIDCObserver)?

    /// Where this introspector's answers are kept in a shared ``IntrospectionCache``: its endpoint, its
    /// client id and the answer form it accepts (JSON, or a JWT from ``JWTResponse/issuer`` for its
    /// audience under its ``JWTResponse/requirement``). Introspectors that differ in any of these
    /// never see each other's answers.
    package var cachePartition: IntrospectionCache.Partition {
        let clientID = client.authentication.clientID
        let form: IntrospectionCache.Partition.AnswerForm
        if let jwtResponse {
            form = .jwt(issuer: jwtResponse.issuer, audience: jwtResponse.audience ?? clientID, requirement: jwtResponse.requirement)
        } else {
            form = .json
        }
        return IntrospectionCache.Partition(endpoint: endpoint, clientID: clientID, answerForm: form)
    }

    /// The endpoint and the client id, never the client's credentials.
    public var customMirror: Mirror {
        Mirror(self, children: ["endpoint": endpoint, "client_id": client.authentication.clientID, "caches": cache != nil])
    }

    /// The answer for `token` (from the cache when fresh there).
    /// - Parameters:
    ///   - token: the token to ask about (a secret: never in errors or logs).
    ///   - hint: `token_type_hint` (`access_token`, `refresh_token`).
    /// - Throws: ``OIDC/OIDCError``: endpoint errors (`oauth_error`, `transport`, ...),
    ///   `.invalidIntrospectionResponse`, `.unsignedIntrospectionResponse` (plain JSON where a JWT
    ///   answer is required), JWT-answer verification errors.
    func introspectToken(_ token: String, hint: String?) async throws -> IntrospectionResult {
        let partition = cachePartition
        if let cached = await cache?.result(for: token, in: partition) { return cached }
        var parameters: [(name: String, value: String)] = [("token", token)]
        if let hint { parameters.append(("token_type_hint", hint)) }
        var headers: HeaderFields = [:]
        // RFC 9701 §4; glewlwyd 2.7.5 answers JSON unless the value is exactly this.
        if jwtResponse != nil { headers["Accept"] = "application/token-introspection+jwt" }
        let response = try await client.post(parameters, to: endpoint, name: .introspection, what: "introspection", headers: headers)
        let result = try await read(response)
        await cache?.store(result, for: token, in: partition)
        return result
    }

    /// The RFC 7662 `token_type` values (compared case-insensitively) of an answer ``validate(_:requiredScopes:)``
    /// accepts: `access_token`, `Bearer` and `DPoP` (an access token and its RFC 6749 / RFC 9449 types).
    /// An absent `token_type` is accepted too (RFC 7662 makes it optional); any other value
    /// (`refresh_token`, `id_token`, `N_A`, a URN...) is refused, so a refresh token introspected
    /// at a server that introspects those never authorizes a request.
    package static let accessTokenTypes: Set<String> = ["access_token", "bearer", "dpop"]

    /// Introspects `token` presented as `Bearer` without a client certificate: active, current, an access token,
    /// bound to nothing (``TokenBinding``), carrying `requiredScopes`.
    /// - Throws: ``OIDC/OIDCError`` the codes of ``activeAccessToken(_:)``, `.claimTypeMismatch` (a malformed `cnf`),
    ///   `.certificateBoundToken`, `.dpopBoundTokenAsBearer`, `.insufficientScope`.
    func validateToken(_ token: String, requiredScopes: Set<String>) async throws -> TokenIntrospection {
        let info = try await activeAccessToken(token)
        try TokenBinding.checkBearer(try info.confirmation, clientCertificate: .notPresented)
        try ScopeCheck.require(requiredScopes, granted: info.scopes)
        return info
    }

    /// Introspects `token` and requires it an access token, active and current; no binding, no scopes.
    ///
    /// Checks, on every call (cached answers included): `active`, the answer's `token_type` absent or one of
    /// ``accessTokenTypes``, `exp` and `nbf` with the leeway, and the ``audience`` rule.
    /// - Throws: ``OIDC/OIDCError`` `.inactiveToken`, `.unexpectedTokenType` (the answer is about a token
    ///   that is not an access token), `.expired`, `.notYetValid`, `.audienceMismatch`,
    ///   and the errors of ``introspect(_:hint:)``.
    func activeAccessToken(_ token: String) async throws -> TokenIntrospection {
        guard case .active(let info) = try await introspect(token, hint: "access_token") else {
            throw OIDCError(.inactiveToken, "the introspection endpoint says the token is not active")
        }
        if let type = info.tokenType, !Self.accessTokenTypes.contains(type.lowercased()) {
            throw OIDCError(
                .unexpectedTokenType,
                "the introspected token is not an access token (its token_type is not access_token, Bearer or DPoP)")
        }
        let now = client.clock()
        if let expiresAt = info.expiresAt, now.timeIntervalSince(expiresAt) >= leeway {
            throw OIDCError(.expired, "the introspected token expired")
        }
        if let notBefore = info.notBefore, notBefore.timeIntervalSince(now) > leeway {
            throw OIDCError(.notYetValid, "the introspected token is not valid yet")
        }
        if case .contains(let expected) = audience, !info.audience.isEmpty, !info.audience.contains(expected) {
            throw OIDCError(.audienceMismatch, "the introspected token's \"aud\" does not contain this resource server")
        }
        return info
    }

    private func read(_ response: TransportResponse) async throws -> IntrospectionResult {
        if MediaType.essence(of: response.headers["Content-Type"]) == "application/token-introspection+jwt" {
            guard let jwtResponse else {
                throw OIDCError(.invalidIntrospectionResponse, "the introspection endpoint answered with a JWT, and no key is configured to verify it")
            }
            return try await IntrospectionJWT.read(
                response.body, settings: jwtResponse, clientID: client.authentication.clientID,
                leeway: leeway, clock: client.clock)
        }
        if let jwtResponse, jwtResponse.requirement == .required {
            throw OIDCError(
                .unsignedIntrospectionResponse,
                "the introspection endpoint answered with plain JSON where a signed JWT (application/token-introspection+jwt, RFC 9701) is required",
                httpStatus: response.status)
        }
        let object: JSONObject
        do {
            object = try ClientFormPost.object(from: response, name: .introspection)
        } catch let error as OIDCError {
            throw OIDCError(.invalidIntrospectionResponse, error.reason, httpStatus: response.status)
        }
        return try TokenIntrospection.read(object)
    }
}

/// The JWT form of an introspection answer (RFC 9701 §5).
enum IntrospectionJWT {
    static let type = "token-introspection+jwt"

    static func read(
        _ body: [UInt8], settings: TokenIntrospector.JWTResponse, clientID: String, leeway: TimeInterval,
        clock: @escaping @Sendable () -> Date
    ) async throws -> IntrospectionResult {
        var token = String(decoding: body, as: UTF8.self).filter { !$0.isWhitespace }
        if NestedJWT.isEncrypted(token) {
            guard !settings.decryptionKeys.isEmpty else {
                throw OIDCError(.invalidIntrospectionResponse, "the introspection answer is encrypted and no decryption key is configured")
            }
            do {
                token = try NestedJWT.signedToken(
                    in: token, decryptionKeys: settings.decryptionKeys,
                    policy: settings.encryption?.policy() ?? .default)
            } catch let error as JOSEError {
                throw OIDCError(.invalidIntrospectionResponse, "the encrypted introspection answer cannot be decrypted: \(error.reason)", joseError: error)
            }
        } else if let registered = settings.encryption {
            throw OIDCError(.invalidIntrospectionResponse, "the introspection answer is not encrypted and \(registered) is registered")
        }
        let validation = JWTValidationPolicy(
            clock: clock, leeway: leeway, issuer: settings.issuer, audience: settings.audience ?? clientID,
            requiredClaims: ["iat", "token_introspection"])
        let jwt = try await settings.keys.verify(
            token, policy: JWSVerificationPolicy(allowedAlgorithms: IssuerKeys.asymmetricAlgorithms),
            validation: validation, kind: .introspectionResponse)
        guard jwt.header.hasType(type) else {
            throw OIDCError(.unexpectedTokenType, "the introspection JWT's typ is not \(type) (RFC 9701 §5)")
        }
        guard let object = jwt.claims["token_introspection"]?.objectValue else {
            throw OIDCError(.invalidIntrospectionResponse, "\"token_introspection\" in the introspection JWT is not an object")
        }
        return try TokenIntrospection.read(object)
    }
}
