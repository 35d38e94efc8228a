import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Validates ID Tokens, refusing each broken rule with its own ``/OIDCCore/OIDCError`` code.
///
/// The rules are those of OpenID Connect Core §3.1.3.7 for the code flow, §3.2.2.11 for the
/// implicit flow and §3.3.2.12 for the hybrid flow, checked in this order: shape and `alg`, never
/// `none`; the signature with an allowed algorithm, HS* only with the client secret; `iss`, `aud`,
/// `azp`, `exp`, `iat`, `nbf`, `sub`, `nonce`, `acr`, `auth_time`, `at_hash`, `c_hash`.
public struct IDTokenValidator: Sendable {
    /// What is checked.
    public let configuration: Configuration
    /// The provider's keys; `nil` when only HS* tokens, verified with the client secret, are expected.
    package let keys: IssuerKeys?

    /// A validator for the rules of `configuration`, with the provider's keys.
    /// - Parameters:
    ///   - configuration: what is checked, and the observer.
    ///   - keys: where the provider's keys come from: its JWK Set cache, or a fixed set or pinned key.
    ///     `nil` (default): HS* tokens only, verified with ``Configuration/clientSecret``.
    public init(configuration: Configuration, keys: IssuerKeys? = nil) {
        self.configuration = configuration
        self.keys = keys
    }

    /// Parses and validates `token`.
    /// - Parameters:
    ///   - token: the compact ID Token.
    ///   - expectations: what the authentication request asked for: nonce, flow, `max_age`, `acr`. Required,
    ///     so the nonce check cannot be left out by omission; ``ExpectedNonce/noNonceSent`` says so explicitly.
    /// - Returns: the validated token.
    /// - Throws: ``/OIDCCore/OIDCError`` of category `invalidInput`, such as `.invalidSignature`, `.expired` or `.nonceMismatch`;
    ///   key-set fetch errors when the keys cannot be had.
    public func validate(_ token: String, expecting expectations: IDTokenExpectations) async throws -> IDToken {
        try await configuration.observer.observe(.idTokenValidation, origin: Observation.origin(of: config.issuer)) {
            try await validateToken(token, expecting: expectations)
        }
    }

    /// The configuration, under the short name the checks use.
    var config: Configuration { configuration }

    /// ``validate(_:expecting:)`` without the event.
    func validateToken(_ received: String, expecting expectations: IDTokenExpectations) async throws -> IDToken {
        let token = try config.signedIDToken(received, requiringRegisteredEncryption: true)
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token, limits: config.limits)
        } catch let error as JOSEError {
            throw OIDCError(.malformedIDToken, "the ID Token is not a compact JWS", joseError: error)
        }
        let algorithm = try VerificationErrors.algorithm(of: jws.header)
        try Self.refuseOtherTokenTypes(jws.header)
        if case .entra? = config.profile { try ProviderProfile.refuseGraphAccessToken(jws.header) }
        let idToken = try IDToken(jws: jws, compact: token, limits: config.limits, providerProfile: config.profile)
        if !config.insecureSkipSignatureCheck {
            try await verifySignature(jws, algorithm: algorithm)
        }
        try checkClaims(idToken, algorithm: algorithm, expectations: expectations)
        return idToken
    }

    /// Explicitly typed JWTs of other kinds are never ID Tokens (RFC 8725bis): an RFC 9068 access token
    /// (`at+jwt`), a logout token, a JWT introspection answer, a request object, a DPoP proof, a security event,
    /// a client assertion, an SD-JWT key binding JWT, a status list token, an entity statement; compared by
    /// JOSE's one `typ` rule (`JOSEHeader.hasType(_:)`, RFC 7515 §4.1.9).
    static let otherTokenTypes = [
        "at+jwt", "logout+jwt", "token-introspection+jwt", "oauth-authz-req+jwt", "dpop+jwt", "secevent+jwt",
        "client-authentication+jwt", "kb+jwt", "statuslist+jwt", "entity-statement+jwt",
    ]

    static func refuseOtherTokenTypes(_ header: JOSEHeader) throws {
        guard header.type != nil else { return }
        if otherTokenTypes.contains(where: header.hasType) {
            throw OIDCError(.invalidIDTokenHeader, "the token's typ says it is not an ID Token")
        }
    }

    func policy(allowing algorithms: Set<JWSAlgorithm>) -> JWSVerificationPolicy {
        JWSVerificationPolicy(allowedAlgorithms: algorithms, minimumRSAKeyBits: config.minimumRSAKeyBits, limits: config.limits)
    }

    /// Verifies with the provider's keys (or the client secret for HS*) under `allowed` (default: the ID Token algorithms).
    func verifySignature(_ jws: CompactJWS, algorithm: JWSAlgorithm, allowed: Set<JWSAlgorithm>? = nil, what: String = "ID Token") async throws {
        let allowed = allowed ?? config.effectiveAlgorithms
        guard allowed.contains(algorithm) else {
            throw OIDCError(.algorithmNotAllowed, "the \(what)'s algorithm \(algorithm) is not among the allowed algorithms")
        }
        let policy = policy(allowing: allowed)
        if algorithm.family == .hmac {
            guard let secret = config.clientSecret else {
                throw OIDCError(.clientSecretRequired, "an \(algorithm) ID Token can only be verified with the client secret, and none is configured")
            }
            do {
                try jws.verify(with: JWK(symmetricKey: Array(secret.utf8)), policy: policy)
            } catch let error as JOSEError {
                throw VerificationErrors.map(error, header: jws.header)
            }
            return
        }
        guard let keys else {
            throw OIDCError(.signingKeyNotFound, "no key set is configured for \(algorithm) ID Tokens")
        }
        try await keys.verifySignature(jws, policy: policy)
    }

    func checkClaims(_ token: IDToken, algorithm: JWSAlgorithm, expectations: IDTokenExpectations) throws {
        let now = config.clock()
        let leeway = Leeway.effective(config.leeway)  // NaN/negative -> 0, above a day -> a day
        if !config.insecureSkipIssuerCheck {
            guard let issuer = token.issuer else { throw OIDCError(.missingIssuer, "the ID Token has no \"iss\"") }
            if let profile = config.profile {
                try profile.checkIssuer(issuer, claims: token.claims, configured: config.issuer)
            } else {
                guard issuer == config.issuer else { throw OIDCError(.issuerMismatch, "the ID Token's \"iss\" is not the expected issuer") }
            }
        }
        if !config.insecureSkipClientIDCheck {
            guard token.hasAudience, !token.audience.isEmpty else { throw OIDCError(.missingAudience, "the ID Token has no \"aud\"") }
            guard token.audience.contains(config.clientID) else {
                throw OIDCError(.audienceMismatch, "the ID Token's \"aud\" does not contain the client id")
            }
            if token.audience.count > 1, token.authorizedParty == nil {
                throw OIDCError(.missingAuthorizedParty, "the ID Token has several audiences and no \"azp\"")
            }
            if let azp = token.authorizedParty, azp != config.clientID {
                throw OIDCError(.authorizedPartyMismatch, "the ID Token's \"azp\" is not the client id")
            }
        }
        try TimeClaims.check(
            token.claims, now: now, leeway: leeway, requiresExpiration: true, requiresIssuedAt: true,
            checksExpiration: !config.insecureSkipExpiryCheck, what: "the ID Token")
        if let maximumTokenAge = config.maximumTokenAge, let issuedAt = token.issuedAt,
            now.timeIntervalSince(issuedAt) > maximumTokenAge + leeway
        {
            throw OIDCError(.issuedTooLongAgo, "the ID Token was issued more than \(maximumTokenAge.wholeText) s ago")
        }
        guard let subject = token.subject, !subject.isEmpty else { throw OIDCError(.missingSubject, "the ID Token has no \"sub\"") }

        switch expectations.flow {
        case .implicit, .hybrid:
            guard expectations.nonce != nil else {
                throw OIDCError(.nonceRequired, "the implicit and hybrid flows require a nonce in the request")
            }
        case .tokenEndpoint:
            break
        }
        if let expected = expectations.nonce {
            guard let nonce = token.nonce else { throw OIDCError(.missingNonce, "a nonce was sent but the ID Token has none") }
            guard ConstantTime.equals(nonce, expected) else { throw OIDCError(.nonceMismatch, "the ID Token's nonce is not the one sent") }
        }
        if expectations.acrEssential, let values = expectations.acrValues {
            guard let acr = token.authenticationContextClass else {
                throw OIDCError(.missingACR, "\"acr\" was requested as essential and the ID Token has none")
            }
            guard values.contains(acr) else { throw OIDCError(.acrNotSatisfied, "the ID Token's \"acr\" is not one of those requested") }
        }
        for name in expectations.requiredClaims.sorted() {
            if token.claims[name] == nil || token.claims[name] == .null {
                throw OIDCError(.missingEssentialClaim, "the essential claim \"\(name)\" was requested and the ID Token has none")
            }
        }
        if expectations.maxAge != nil || expectations.authTimeEssential {
            guard let authTime = token.authTime else {
                throw OIDCError(.missingAuthTime, "\"auth_time\" is required (max_age or an essential auth_time was requested)")
            }
            if let maxAge = expectations.maxAge, now.timeIntervalSince(authTime) > maxAge + leeway {
                throw OIDCError(.authenticationTooOld, "the end-user authenticated more than max_age (\(maxAge.wholeText) s) ago")
            }
        }

        let (accessToken, code, accessTokenHashRequired): (String?, String?, Bool) = {
            switch expectations.flow {
            case .tokenEndpoint(let accessToken): return (accessToken, nil, false)
            case .implicit(let accessToken): return (accessToken, nil, accessToken != nil)
            case .hybrid(let code, let accessToken): return (accessToken, code, accessToken != nil)
            }
        }()
        if let accessToken {
            if let claimed = token.accessTokenHash {
                guard TokenHash.matches(claimed, value: accessToken, algorithm: algorithm) else {
                    throw OIDCError(.accessTokenHashMismatch, "the ID Token's \"at_hash\" does not match the access token")
                }
            } else if accessTokenHashRequired {
                throw OIDCError(.missingAccessTokenHash, "the ID Token has no \"at_hash\", which this response type requires")
            }
        }
        if let code {
            guard let claimed = token.codeHash else {
                throw OIDCError(.missingCodeHash, "the ID Token has no \"c_hash\", which this response type requires")
            }
            guard TokenHash.matches(claimed, value: code, algorithm: algorithm) else {
                throw OIDCError(.codeHashMismatch, "the ID Token's \"c_hash\" does not match the authorization code")
            }
        }
    }
}
