import JOSE
import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
/// ``ResourceGuard`` calls ``validate(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)`` with
/// the request and answers a failure with ``AccessTokenRefusal``.
package struct AccessTokenValidator: Sendable {
    /// The issuer identifier `iss` must equal.
    package let issuer: String
    /// This resource server's identifier, which `aud` must contain.
    package let audience: String
    /// Where the issuer's keys come from.
    package let keys: IssuerKeys
    /// The algorithms accepted (default: every asymmetric one; never HMAC, never `none`).
    package let allowedAlgorithms: Set<JWSAlgorithm>
    /// Allowed clock skew in seconds (default 60).
    package let leeway: TimeInterval
    /// The current time.
    package let clock: @Sendable () -> Date
    /// Input limits for the token.
    package let limits: JOSELimits
    /// The DPoP proof rules (with their replay cache) for tokens presented with the `DPoP` scheme.
    package let proofs: DPoPProofValidator
    /// Which access tokens are accepted: RFC 9068's (default) or a provider's (``AccessTokenProfile``).
    package let profile: AccessTokenProfile

    /// Receives one ``OIDC/OIDCEvent`` per token validated (``OIDC/OIDCEvent/Kind/accessTokenValidation``: accepted, or refused with the error's code);
    /// `nil` (default): none, and no work beyond a `nil` check.
    package let observer: (any OIDCObserver)?
    /// Where verified tokens are kept (``VerifiedTokenStore``: its rules); `nil`: every token verified every time.
    package let tokenCache: VerifiedTokenStore?

    /// The digest of everything besides the token that decides whether it is accepted (issuer, audience, algorithms,
    /// `typ` rule, profile): half of a ``tokenCache`` key.
    private let policyDigest: VerifiedTokenStore.Digest
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
    ///   - observer: receives one event per token validated; `nil` (default): none.
    ///   - tokenCache: where verified tokens are kept; default a store of ``ResourceGuard/VerifiedTokenCache``'s defaults,
    ///     `nil` none. A store may be shared by validators of different policies: their keys never meet.
    package init(
        issuer: String, audience: String, keys: IssuerKeys,
        allowedAlgorithms: Set<JWSAlgorithm> = IssuerKeys.asymmetricAlgorithms, leeway: TimeInterval = 60,
        clock: @escaping @Sendable () -> Date = { Date() }, limits: JOSELimits = .default, proofs: DPoPProofValidator? = nil,
        profile: AccessTokenProfile = .rfc9068, observer: (any OIDCObserver)? = nil,
        tokenCache: VerifiedTokenStore? = ResourceGuard.VerifiedTokenCache().makeStore()
    ) {
        self.profile = profile
        self.tokenCache = tokenCache
        self.observer = observer
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
        policyDigest = Self.policyDigest(issuer: issuer, audience: audience, algorithms: self.allowedAlgorithms, limits: limits, profile: profile)
        if let tokenCache, case .cache(let cache) = keys { tokenCache.follow(cache) }
    }

    /// The SHA-256 of the policy's parts, each length-prefixed: equal exactly for validators that accept the same tokens.
    private static func policyDigest(
        issuer: String, audience: String, algorithms: Set<JWSAlgorithm>, limits: JOSELimits, profile: AccessTokenProfile
    ) -> VerifiedTokenStore.Digest {
        let typeRule: String
        let profileText: String
        switch profile {
        case .rfc9068:
            typeRule = "at+jwt"
            profileText = "rfc9068"
        case .keycloak(let clients):
            typeRule = "keycloak"
            profileText = "keycloak:" + clients.sorted().map { "\($0.utf8.count):\($0)" }.joined()
        case .entra(let tenants):
            typeRule = "entra"
            profileText = "entra:" + (tenants.allowed.map { $0.map { $0.lowercased() }.sorted().map { "\($0.utf8.count):\($0)" }.joined() } ?? "*")
        }
        let parts = [
            "verified-token-policy/1", issuer, audience, algorithms.map(\.rawValue).sorted().joined(separator: ","), typeRule, profileText,
            "\(limits.maxTokenBytes)",
        ]
        return VerifiedTokenStore.Digest(sha256: Array(parts.map { "\($0.utf8.count):\($0)" }.joined().utf8))
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
    ///   - observer: receives one event per token validated; `nil` (default): none.
    ///   - tokenCache: where verified tokens are kept (see the initializer).
    package static func discover(
        issuer: String, audience: String, discovery: Discovery, keyCaches: JWKSetCacheRegistry,
        leeway: TimeInterval = 60, clock: @escaping @Sendable () -> Date = { Date() },
        proofs: DPoPProofValidator? = nil, profile: AccessTokenProfile = .rfc9068,
        observer: (any OIDCObserver)? = nil, tokenCache: VerifiedTokenStore? = ResourceGuard.VerifiedTokenCache().makeStore()
    ) async throws -> AccessTokenValidator {
        let metadata: ProviderMetadata
        if case .entra(let tenants) = profile {  // the {tenantid} template: accepted under the profile, not cached
            metadata = try await Discovery.fetch(
                issuer: issuer, transport: discovery.transport, observer: discovery.observer,
                profile: .entra(tenants))
        } else {
            metadata = try await discovery.metadata(for: issuer)
        }
        guard let jwksURI = metadata.jwksURI else { throw OIDCError(.jwksURIMissing, "the issuer publishes no jwks_uri") }
        let cache = try await keyCaches.cache(for: jwksURI)
        return AccessTokenValidator(
            issuer: issuer, audience: audience, keys: .cache(cache), leeway: leeway, clock: clock, proofs: proofs,
            profile: profile, observer: observer, tokenCache: tokenCache)
    }

    /// Whether a `typ` header value names an RFC 9068 access token: JOSE's one `typ` rule
    /// (`JOSEHeader.mediaType(_:is:)`, RFC 7515 §4.1.9).
    package static func isAccessTokenType(_ type: String?) -> Bool { JOSEHeader.mediaType(type, is: "at+jwt") }

    /// Validates the access token of a request as a resource server accepting both `Bearer` and
    /// `DPoP` must (RFC 9449 §7): the one path, which ``ResourceGuard`` calls, and the one call that reads the token's `cnf`.
    ///
    /// - `Authorization: Bearer <token>`: refused when the token is bound to a DPoP key (`cnf.jkt`).
    /// - `Authorization: DPoP <token>` with exactly one `DPoP: <proof>` header: the token must carry
    ///   `cnf.jkt`, and the proof must pass ``proofs`` for `method` and `url`, with `ath` of this token and
    ///   a key whose thumbprint is `cnf.jkt`; its `jti` is remembered (replays refused).
    /// - A token bound to a certificate (`cnf.x5t#S256`) passes only with the matching `clientCertificate`.
    ///
    /// With an ``observer``, the same path runs inside one observed operation; without one, only the `nil` check is added.
    /// - Throws: ``OIDC/OIDCError`` with the code of the first rule that failed; ``AccessTokenRefusal`` answers it.
    package func validate(
        method: String, url: URL, headers: HeaderFields, requiredScopes: Set<String> = [],
        dpopNonce: DPoPProofValidator.NonceRule = .notRequired,
        clientCertificate: ClientCertificate = .notPresented
    ) async throws -> PresentedAccessToken {
        guard let observer else {
            return try await validateRequest(
                method: method, url: url, headers: headers, requiredScopes: requiredScopes,
                dpopNonce: dpopNonce, clientCertificate: clientCertificate)
        }
        return try await Optional(observer).observe(.accessTokenValidation, origin: Observation.origin(of: issuer)) {
            try await validateRequest(
                method: method, url: url, headers: headers, requiredScopes: requiredScopes,
                dpopNonce: dpopNonce, clientCertificate: clientCertificate)
        }
    }

    /// The request's rules, in order: the credentials, the token (``verified(_:)``), its binding (``TokenBinding``:
    /// the rule introspection shares), the scopes.
    private func validateRequest(
        method: String, url: URL, headers: HeaderFields, requiredScopes: Set<String>,
        dpopNonce: DPoPProofValidator.NonceRule,
        clientCertificate: ClientCertificate
    ) async throws -> PresentedAccessToken {
        let (scheme, token) = try TokenBinding.credentials(headers)
        if scheme == .bearer {
            let accessToken = try await cachedOrVerified(token)
            try TokenBinding.checkBearer(accessToken.confirmation, clientCertificate: clientCertificate)
            try Self.checkScopes(requiredScopes, of: accessToken)
            return PresentedAccessToken(token: accessToken, scheme: .bearer, proof: nil)
        }
        // The DPoP scheme: exactly one proof, a token bound to its key.
        let proofText = try TokenBinding.proof(headers)
        let accessToken = try await cachedOrVerified(token)
        let proof = try await TokenBinding.checkDPoP(
            accessToken.confirmation, token: token, proof: proofText, proofs: proofs,
            method: method, url: url, nonce: dpopNonce, clientCertificate: clientCertificate)
        try Self.checkScopes(requiredScopes, of: accessToken)
        return PresentedAccessToken(token: accessToken, scheme: .dpop, proof: proof)
    }

    /// ``verified(_:)`` through ``tokenCache``: a token kept there (under this policy, still within its times at this
    /// clock, with the leeway) is served without a signature check; on a miss one caller per token verifies and keeps a
    /// success. The caller checks the binding and the scopes on every request, as for a verified token.
    private func cachedOrVerified(_ token: Substring) async throws -> AccessToken {
        guard let tokenCache, token.utf8.count <= VerifiedTokenStore.maximumTokenBytes else { return try await verified(token) }
        let key = VerifiedTokenStore.Key(token: token, policy: policyDigest)
        switch tokenCache.lookup(key, now: clock(), leeway: leeway) {
        case .hit(let accessToken):
            return accessToken
        case .wait(let flight):
            if let accessToken = await tokenCache.wait(for: flight, now: clock, leeway: leeway) { return accessToken }
            return try await verified(token)  // the leader failed: failures are not shared, each caller learns its own
        case .lead(let flight):
            let accessToken: AccessToken
            do {
                accessToken = try await verified(token)
            } catch {
                tokenCache.finish(flight, key: key, with: nil, keySource: nil, now: clock())
                throw error
            }
            tokenCache.finish(flight, key: key, with: accessToken, keySource: keySource, now: clock())
            return accessToken
        }
    }

    /// The key cache verified tokens' keys come from, for ``VerifiedTokenStore/follow(_:)``; `nil` for a fixed set.
    private var keySource: ObjectIdentifier? {
        if case .cache(let cache) = keys { return ObjectIdentifier(cache) }
        return nil
    }

    /// The token's signature, times, type, issuer, audience and required claims; no binding, no scopes.
    /// A refused token with a `nonce` in its header is named for what it is: a Microsoft Graph token.
    /// `token` may be part of the request's `Authorization` value: it is read in place.
    private func verified(_ token: Substring) async throws -> AccessToken {
        do {
            let jwt: JWT
            do {
                jwt = try await verifiedJWT(token, validation: rules)
            } catch let error as OIDCError where profile == .rfc9068 && Self.typeDecidesFirst(error) {
                // Say "not an access token" rather than "wrong audience" for an ID Token: the typ
                // decides first. Failures only: one verification on the success path.
                let verified = try await verifiedJWT(token, validation: timeRules)
                try Self.checkType(verified.header)
                throw error
            }
            return try accepted(jwt)
        } catch {
            try refuseGraphToken(token)
            throw error
        }
    }

    /// The signature and `validation`'s claim rules: without suspending when the keys are at hand, else through the key cache
    /// (the same checks: ``OIDC/IssuerKeys`` runs one verification either way).
    private func verifiedJWT(_ token: Substring, validation: JWTValidationPolicy) async throws -> JWT {
        if let jwt = try keys.verifyNow(token, policy: policy, validation: validation) { return jwt }
        return try await keys.verify(String(token), policy: policy, validation: validation)
    }

    /// After a failure: a token with a `nonce` in its header is named for what it is, a Microsoft Graph token.
    private func refuseGraphToken(_ token: Substring) throws {
        if let jws = try? CompactJWS(String(token), limits: limits) { try ProviderProfile.refuseGraphAccessToken(jws.header) }
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
