#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE
import OIDCCore

/// Validates JWT access tokens as RFC 9068 §4 requires, for one resource server.
///
/// Checks, in order: the signature with an allowed asymmetric algorithm and the issuer's
/// keys, the time claims (`exp` required; `nbf`, `iat` with the leeway), `typ` (`at+jwt`
/// or `application/at+jwt`: an ID Token or any other JWT is refused), `iss` (exact), `aud`
/// (must contain ``audience``), the presence of `sub`, `client_id`, `iat`, `jti`, the token's
/// binding (`cnf`: a `jkt`-bound token only with the `DPoP` scheme and a proof signed by that key,
/// RFC 9449 §7; an `x5t#S256`-bound one only with that client certificate, RFC 8705 §3), and
/// the required scopes. JOSE's `JWT.verify` and `JWTValidationPolicy` apply the
/// signature, time, issuer and audience rules; this type adds only what RFC 9068 adds.
///
/// A server calls ``validate(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)`` with
/// the request and answers a failure with ``AccessTokenRefusal``.
public struct AccessTokenValidator: Sendable {
    /// The issuer identifier `iss` must equal.
    public let issuer: String
    /// This resource server's identifier, which `aud` must contain.
    public let audience: String
    /// Where the issuer's keys come from.
    public let keys: IssuerKeys
    /// The algorithms accepted (default: every asymmetric one; never HMAC, never `none`).
    public let allowedAlgorithms: Set<JWSAlgorithm>
    /// Allowed clock skew in seconds (default 60).
    public let leeway: TimeInterval
    /// The current time.
    public let clock: @Sendable () -> Date
    /// Input limits for the token.
    public let limits: JOSELimits
    /// The DPoP proof rules (with their replay cache) for tokens presented with the `DPoP` scheme.
    public let proofs: DPoPProofValidator
    /// Which access tokens are accepted: RFC 9068's (default) or a provider's (``AccessTokenProfile``).
    public let profile: AccessTokenProfile

    /// Receives one ``OIDC/OIDCEvent`` per token validated (``OIDC/OIDCEvent/Kind/accessTokenValidation``: accepted, or refused with the error's code);
    /// `nil` (default): none, and no work beyond a `nil` check.
    public var observer: (any OIDCObserver)? = nil

    private let policy: JWSVerificationPolicy
    private let rules: JWTValidationPolicy
    private let timeRules: JWTValidationPolicy

    /// Creates a validator.
    /// - Parameters:
    ///   - issuer: the authorization server's issuer identifier.
    ///   - audience: this resource server's identifier (its `resource` URI or configured audience).
    ///   - keys: the issuer's key cache or a fixed key set.
    ///   - allowedAlgorithms: a subset of the asymmetric algorithms; HMAC entries are dropped.
    ///   - leeway: allowed clock skew for the time claims, in seconds.
    ///   - clock: the current time.
    ///   - limits: size and nesting bounds for the token.
    ///   - proofs: the DPoP proof rules; `nil` (the default) is a ``DPoPProofValidator`` with this
    ///     `leeway` and `clock` and its own ``InMemoryReplayCache`` (replay protection on).
    ///   - profile: which access tokens are accepted; default RFC 9068's.
    public init(issuer: String, audience: String, keys: IssuerKeys,
                allowedAlgorithms: Set<JWSAlgorithm> = IssuerKeys.asymmetricAlgorithms, leeway: TimeInterval = 60,
                clock: @escaping @Sendable () -> Date = { Date() }, limits: JOSELimits = .default, proofs: DPoPProofValidator? = nil,
                profile: AccessTokenProfile = .rfc9068) {
        self.profile = profile
        self.proofs = proofs ?? DPoPProofValidator(leeway: leeway, clock: clock)
        self.issuer = issuer
        self.audience = audience
        self.keys = keys
        self.allowedAlgorithms = allowedAlgorithms.intersection(IssuerKeys.asymmetricAlgorithms)
        self.leeway = leeway
        self.clock = clock
        self.limits = limits
        policy = JWSVerificationPolicy(allowedAlgorithms: self.allowedAlgorithms, limits: limits)
        // sub, client_id, iat and jti are required by AccessToken(jwt:issuer:), which reads them anyway.
        switch profile {
        case .keycloak:  // its own audience rule (aud, or an allowed azp), checked after verification
            rules = JWTValidationPolicy(clock: clock, leeway: leeway, issuer: issuer, requiresExpiration: true)
        case .entra:  // iss checked per tenant after verification
            rules = JWTValidationPolicy(clock: clock, leeway: leeway, audience: audience, requiresExpiration: true)
        case .rfc9068:
            rules = JWTValidationPolicy(clock: clock, leeway: leeway, issuer: issuer, audience: audience, requiresExpiration: true)
        }
        timeRules = JWTValidationPolicy(clock: clock, leeway: leeway, requiresExpiration: true)
    }

    /// A validator whose keys come from the issuer's discovery document and a shared key cache.
    /// - Throws: discovery errors, `.jwksURIMissing`, and `.insecureURL` for a non-https `jwks_uri`.
    /// - Parameters:
    ///   - issuer: the authorization server's issuer identifier (discovered exactly).
    ///   - audience: this resource server's identifier.
    ///   - discovery: the discovery client (its cache is shared).
    ///   - keyCaches: the shared JWK Set caches, one per `jwks_uri`.
    ///   - leeway: allowed clock skew for the time claims, in seconds.
    ///   - clock: the current time.
    ///   - proofs: the DPoP proof rules; `nil`: the defaults of ``init(issuer:audience:keys:allowedAlgorithms:leeway:clock:limits:proofs:profile:)``.
    ///   - profile: which access tokens are accepted; default RFC 9068's.
    public static func discover(issuer: String, audience: String, discovery: Discovery, keyCaches: JWKSetCacheRegistry,
                                leeway: TimeInterval = 60, clock: @escaping @Sendable () -> Date = { Date() },
                                proofs: DPoPProofValidator? = nil, profile: AccessTokenProfile = .rfc9068) async throws -> AccessTokenValidator {
        let metadata: ProviderMetadata
        if case .entra(let tenants) = profile {  // the {tenantid} template: accepted under the profile, not cached
            metadata = try await Discovery.fetch(issuer: issuer, transport: discovery.transport, observer: discovery.observer,
                                                 profile: .entra(tenants))
        } else {
            metadata = try await discovery.metadata(for: issuer)
        }
        guard let jwksURI = metadata.jwksURI else { throw OIDCError(.jwksURIMissing, "the issuer publishes no jwks_uri") }
        let cache = try await keyCaches.cache(for: jwksURI)
        return AccessTokenValidator(issuer: issuer, audience: audience, keys: .cache(cache), leeway: leeway, clock: clock, proofs: proofs,
                                    profile: profile)
    }

    /// Whether a `typ` header value names an RFC 9068 access token (case-insensitively,
    /// with or without the `application/` prefix, RFC 7515 §4.1.9).
    public static func isAccessTokenType(_ type: String?) -> Bool {
        guard var type else { return false }
        return type.withUTF8 { bytes in
            var start = 0
            if bytes.count > 12, matchesLowercased(bytes, from: 0, "application/") { start = 12 }
            return bytes.count - start == 6 && matchesLowercased(bytes, from: start, "at+jwt")
        }
    }

    /// Whether `bytes` from `start` on begin with the ASCII text `lowercase`, compared case-insensitively (bytes read in place).
    private static func matchesLowercased(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, _ lowercase: StaticString) -> Bool {
        let count = lowercase.utf8CodeUnitCount
        guard bytes.count - start >= count else { return false }
        let wanted = lowercase.utf8Start
        for offset in 0..<count where lowercased(bytes[start + offset]) != wanted[offset] { return false }
        return true
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }

    /// Validates the access token of a request as a resource server accepting both `Bearer` and
    /// `DPoP` must (RFC 9449 §7): the one call that reads the token's `cnf` itself.
    ///
    /// - `Authorization: Bearer <token>`: refused when the token is bound to a DPoP key (`cnf.jkt`).
    /// - `Authorization: DPoP <token>` with exactly one `DPoP: <proof>` header: the token must carry
    ///   `cnf.jkt`, and the proof must pass ``proofs`` for `method` and `url` (its `htu` compared after
    ///   normalization), with `ath` of this token and a key whose thumbprint is `cnf.jkt`; its `jti`
    ///   is remembered (replays refused).
    /// - A token bound to a certificate (`cnf.x5t#S256`) passes only with the matching `clientCertificate`.
    ///
    /// - Parameters:
    ///   - method: the request's HTTP method.
    ///   - url: the URL the request was sent to, as the client addressed this server (scheme, host,
    ///     port and path; query and fragment are ignored).
    ///   - headers: the request's header fields (`Authorization`, `DPoP`).
    ///   - requiredScopes: the scopes the resource requires.
    ///   - dpopNonce: the nonce this server requires in DPoP proofs, if any.
    ///   - clientCertificate: the client's TLS certificate, for certificate-bound tokens.
    /// - Returns: the validated token, its scheme and (for `DPoP`) its proof.
    /// - Throws: ``OIDC/OIDCError``: `.missingBearerToken` (no credentials), `.invalidBearerRequest`,
    ///   the codes of ``validate(bearerToken:requiredScopes:)``, `.dpopBoundTokenAsBearer`,
    ///   `.dpopTokenNotBound`, `.dpopProofMissing`, the `dpop_proof_*` codes, `.certificateBoundToken`
    ///   and `.insufficientScope` — answer them with ``AccessTokenRefusal``.
    public func validate(method: String, url: URL, headers: HeaderFields, requiredScopes: Set<String> = [],
                         dpopNonce: DPoPProofValidator.NonceRule = .notRequired,
                         clientCertificate: ClientCertificate = .notPresented) async throws -> PresentedAccessToken {
        // Without an observer only the nil check is added (the benchmarked hot path).
        guard let observer else {
            let (scheme, token) = try Self.credentials(headers)
            // A Bearer token verified with keys at hand is answered without suspending: the same checks, in the
            // same order, as validateRequest (they are its own functions), minus its async frames.
            if scheme == .bearer, let accessToken = try verifiedNowNaming(token) {
                return try acceptedAsBearer(accessToken, requiredScopes: requiredScopes, clientCertificate: clientCertificate)
            }
            return try await validateRequest(scheme: scheme, token: token, method: method, url: url, headers: headers,
                                             requiredScopes: requiredScopes, dpopNonce: dpopNonce, clientCertificate: clientCertificate)
        }
        return try await Optional(observer).observe(.accessTokenValidation, origin: Observation.origin(of: issuer)) {
            let (scheme, token) = try Self.credentials(headers)
            return try await validateRequest(scheme: scheme, token: token, method: method, url: url, headers: headers,
                                             requiredScopes: requiredScopes, dpopNonce: dpopNonce, clientCertificate: clientCertificate)
        }
    }

    /// The request's rules once its `Authorization` credentials are read (``credentials(_:)``).
    private func validateRequest(scheme: AuthorizationScheme, token: Substring, method: String, url: URL, headers: HeaderFields,
                                 requiredScopes: Set<String>, dpopNonce: DPoPProofValidator.NonceRule,
                                 clientCertificate: ClientCertificate) async throws -> PresentedAccessToken {
        if scheme == .bearer {
            return try acceptedAsBearer(try await verified(token), requiredScopes: requiredScopes, clientCertificate: clientCertificate)
        }
        // The DPoP scheme: exactly one proof, a token bound to its key (TokenBinding: the rule introspection shares).
        let proofText = try TokenBinding.proof(headers)
        let accessToken = try await verified(token)
        let proof = try await TokenBinding.checkDPoP(accessToken.confirmation, token: token, proof: proofText, proofs: proofs,
                                                     method: method, url: url, nonce: dpopNonce, clientCertificate: clientCertificate)
        try Self.checkScopes(requiredScopes, of: accessToken)
        return PresentedAccessToken(token: accessToken, scheme: .dpop, proof: proof)
    }

    /// The request's `Authorization` scheme and token (``TokenBinding/credentials(_:)``).
    /// - Throws: `.missingBearerToken` when it carries neither a `Bearer` nor a `DPoP` token; `.invalidBearerRequest`.
    private static func credentials(_ headers: HeaderFields) throws -> (scheme: AuthorizationScheme, token: Substring) {
        try TokenBinding.credentials(headers)
    }

    /// The rules of a token presented with the `Bearer` scheme, once verified: no binding, and the scopes.
    private func acceptedAsBearer(_ accessToken: consuming AccessToken, requiredScopes: Set<String>,
                                  clientCertificate: ClientCertificate) throws -> PresentedAccessToken {
        try TokenBinding.checkBearer(accessToken.confirmation, clientCertificate: clientCertificate)
        try Self.checkScopes(requiredScopes, of: accessToken)
        return PresentedAccessToken(token: accessToken, scheme: .bearer, proof: nil)
    }

    /// Validates `token` presented with the `Bearer` scheme (e.g. read from a request by
    /// ``BearerTokenExtractor``) and checks it carries every scope in `requiredScopes`. A token bound
    /// to a DPoP key or a certificate is refused: a bearer presentation proves neither.
    /// - Returns: the validated token.
    /// - Throws: ``OIDC/OIDCError``: signature and key codes, `.expired`, `.notYetValid`,
    ///   `.issuedInFuture`, `.unexpectedTokenType`, `.issuerMismatch`, `.audienceMismatch`,
    ///   `.missingAccessTokenClaim`, `.claimTypeMismatch`, `.dpopBoundTokenAsBearer`,
    ///   `.certificateBoundToken` and `.insufficientScope` (naming the missing scopes) — map
    ///   them to a challenge with ``BearerChallenge/init(error:requiredScopes:realm:)``.
    public func validate(bearerToken token: String, requiredScopes: Set<String> = []) async throws -> AccessToken {
        guard let observer else {
            // Without suspending when the keys are at hand, as in validate(method:url:headers:...).
            if let accessToken = try verifiedNowNaming(token[...]) {
                return try acceptedAsBearer(accessToken, requiredScopes: requiredScopes, clientCertificate: .notPresented).token
            }
            return try await validateBearer(token, requiredScopes: requiredScopes)
        }
        return try await Optional(observer).observe(.accessTokenValidation, origin: Observation.origin(of: issuer)) {
            try await validateBearer(token, requiredScopes: requiredScopes)
        }
    }

    private func validateBearer(_ token: String, requiredScopes: Set<String>) async throws -> AccessToken {
        try acceptedAsBearer(try await verified(token[...]), requiredScopes: requiredScopes, clientCertificate: .notPresented).token
    }

    /// The token's signature, times, type, issuer, audience and required claims; no binding, no scopes.
    /// A refused token with a `nonce` in its header is named for what it is: a Microsoft Graph token.
    /// `token` may be part of the request's `Authorization` value: it is read in place on the hot path.
    private func verified(_ token: Substring) async throws -> AccessToken {
        do {
            // Without suspending when the keys are at hand (the hot path), else through the key cache.
            if let accessToken = try verifiedNow(token) { return accessToken }
            return try await verifiedToken(String(token))
        } catch {
            try refuseGraphToken(token)
            throw error
        }
    }

    /// ``verifiedNow(_:)`` with its failures named as ``verified(_:)`` names them.
    private func verifiedNowNaming(_ token: Substring) throws -> AccessToken? {
        do {
            return try verifiedNow(token)
        } catch {
            try refuseGraphToken(token)
            throw error
        }
    }

    /// After a failure: a token with a `nonce` in its header is named for what it is, a Microsoft Graph token.
    private func refuseGraphToken(_ token: Substring) throws {
        if let jws = try? CompactJWS(String(token), limits: limits) { try ProviderProfile.refuseGraphAccessToken(jws.header) }
    }

    private func verifiedToken(_ token: String) async throws -> AccessToken {
        let jwt: JWT
        do {
            jwt = try await keys.verify(token, policy: policy, validation: rules)
        } catch let error as OIDCError where profile == .rfc9068 && Self.typeDecidesFirst(error) {
            // Say "not an access token" rather than "wrong audience" for an ID Token: the typ
            // decides first. Failures only: one verification on the success path.
            let verified = try await keys.verify(token, policy: policy, validation: timeRules)
            try Self.checkType(verified.header)
            throw error
        }
        return try accepted(jwt)
    }

    /// ``verifiedToken(_:)`` without suspending, its failures named the same way; `nil` only when the keys are
    /// not at hand (then no signature was checked here, and ``verifiedToken(_:)`` does the work once).
    private func verifiedNow(_ token: Substring) throws -> AccessToken? {
        let jwt: JWT?
        do {
            jwt = try keys.verifyNow(token, policy: policy, validation: rules)
        } catch let error as OIDCError where profile == .rfc9068 && Self.typeDecidesFirst(error) {
            // As in verifiedToken: the typ decides first.
            guard let verified = try keys.verifyNow(token, policy: policy, validation: timeRules) else { return nil }
            try Self.checkType(verified.header)
            throw error
        }
        guard let jwt else { return nil }
        return try accepted(jwt)
    }

    /// The failures of the claim rules that an RFC 9068 validation reports only once `typ` is found right.
    private static func typeDecidesFirst(_ error: OIDCError) -> Bool {
        [.issuerMismatch, .audienceMismatch, .missingAccessTokenClaim].contains(error.code)
    }

    /// The profile's rules on a token whose signature and claim rules (`rules`) passed.
    private func accepted(_ jwt: consuming JWT) throws -> AccessToken {
        switch profile {
        case .keycloak(let allowedClients):
            try AccessTokenProfile.checkKeycloak(jwt, audience: audience, allowedClients: allowedClients)
            return try AccessToken(jwt: jwt, issuer: issuer, clientFromAuthorizedParty: true)
        case .entra(let tenants):
            try AccessTokenProfile.checkEntra(jwt, issuer: issuer, tenants: tenants)
            return try AccessToken(jwt: jwt, issuer: (try? jwt.claims.issuer) ?? nil ?? issuer, clientFromAuthorizedParty: true, entraNames: true)
        case .rfc9068:
            try Self.checkType(jwt.header)
            return try AccessToken(jwt: jwt, issuer: issuer)
        }
    }

    private static func checkScopes(_ requiredScopes: Set<String>, of accessToken: AccessToken) throws {
        if !requiredScopes.isEmpty, !accessToken.hasScopes(requiredScopes) {
            try ScopeCheck.require(requiredScopes, granted: accessToken.scopes)  // names the missing ones
        }
    }

    private static func checkType(_ header: JOSEHeader) throws {
        guard isAccessTokenType(header.type) else {
            throw OIDCError(.unexpectedTokenType, "the token's typ is not at+jwt (RFC 9068 §4): it is not an access token")
        }
    }
}

/// The required-scope rule, shared by JWT validation and introspection.
enum ScopeCheck {
    static func require(_ required: Set<String>, granted: Set<String>) throws {
        let missing = required.subtracting(granted)
        guard missing.isEmpty else {
            throw OIDCError(.insufficientScope, "the token lacks the scope(s) \(missing.sorted().joined(separator: " "))")
        }
    }
}
