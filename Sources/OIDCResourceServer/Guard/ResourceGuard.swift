import JOSE
import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The resource server's one front door: one call per request answers either the validated access token or the HTTP
/// refusal to send, for RFC 9068 JWT access tokens and RFC 7662 introspection alike.
///
/// ``check(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)`` reads `Authorization` and `DPoP`
/// itself and applies, in order: the credentials (RFC 6750 §2.1, RFC 9449 §7), the token (signature, `typ`, `iss`,
/// `aud`, times and required claims, RFC 9068 §4; or the introspection answer's `active`, `token_type`, times and
/// `aud`), its binding (`cnf.jkt` only with the `DPoP` scheme and a proof of that key, RFC 9449 §7; `cnf.x5t#S256`
/// only with that client certificate, RFC 8705 §3), and the required scopes. An ordinary refusal is a value, never an
/// error: ``AccessTokenRefusal`` carries the status, `WWW-Authenticate`, `DPoP-Nonce` and body, and the error behind it.
///
/// One guard per process: it holds the issuer's key cache (which follows key rotation) and the DPoP replay cache.
public struct ResourceGuard: Sendable {
    /// What ``check(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)`` answers.
    public enum Decision: Sendable {
        /// The token passed every rule: serve the request.
        case allowed(ValidatedAccessToken)
        /// Send this answer instead (status, header fields, body).
        case refused(AccessTokenRefusal)
    }

    private let validator: AccessTokenValidator?
    /// The introspector, when the guard accepts introspected tokens (its answer cache is purged by ``purge(_:)``).
    let introspector: TokenIntrospector?
    /// The validator's verified tokens (``Configuration/verifiedTokenCache``), purged by ``purge(_:)``; `nil`: none.
    let verifiedTokens: VerifiedTokenStore?
    private let proofs: DPoPProofValidator
    private let issuer: String
    private let audience: String
    private let realm: String?
    private let resourceMetadata: URL?

    /// A guard for `issuer`'s tokens meant for `audience`, with the defaults of ``Configuration``.
    /// - Throws: ``/OIDCCore/OIDCError``: discovery's codes (`.discoveryTransportFailed`, `.discoveryInvalidDocument`, ...),
    ///   `.jwksURIMissing`, `.insecureURL`.
    public static func discover(issuer: String, audience: String) async throws -> ResourceGuard {
        try await ResourceGuard(configuration: Configuration(issuer: issuer, audience: audience))
    }

    /// A guard built from `configuration`, discovering the issuer's keys and introspection endpoint where the
    /// configuration does not give them.
    /// - Throws: ``/OIDCCore/OIDCError``: discovery's codes, `.jwksURIMissing`, `.discoveryMissingField` (no
    ///   `introspection_endpoint`), `.insecureURL`; `.transport` when no ``/OIDCTLSTransport/LibSSLTransport`` can be made.
    public init(configuration: Configuration) async throws {
        let c = configuration
        let transport = try c.transport ?? LibSSLTransport()
        let discovery = Discovery(transport: transport, clock: c.clock, observer: c.observer)
        proofs = DPoPProofValidator(
            allowedAlgorithms: c.dpopAlgorithms, maximumAge: c.dpopMaximumAge, leeway: c.leeway,
            replays: c.dpopReplays, clock: c.clock, observer: c.observer)
        var keys = c.keys
        let introspection: Introspection?
        switch c.tokens {
        case .jwt: introspection = nil
        case .introspection(let settings), .jwtOrIntrospection(let settings): introspection = settings
        }
        // The issuer's keys: for JWT access tokens, and for signed introspection answers.
        let needsKeys: Bool
        switch c.tokens {
        case .introspection(let settings): needsKeys = settings.signedAnswers != nil
        default: needsKeys = true
        }
        var jwtValidator: AccessTokenValidator?
        // Only the JWT path verifies access tokens locally: an introspection-only guard keeps no verified tokens.
        let store: VerifiedTokenStore?
        if case .introspection = c.tokens { store = nil } else { store = c.verifiedTokenCache.makeStore() }
        if needsKeys, keys == nil {
            let discovered = try await AccessTokenValidator.discover(
                issuer: c.issuer, audience: c.audience, discovery: discovery,
                keyCaches: JWKSetCacheRegistry(transport: transport, observer: c.observer),
                leeway: c.leeway, clock: c.clock, proofs: proofs, profile: c.profile, observer: c.observer, tokenCache: store)
            keys = discovered.keys
            jwtValidator = discovered
        } else if let keys {
            jwtValidator = AccessTokenValidator(
                issuer: c.issuer, audience: c.audience, keys: keys, leeway: c.leeway, clock: c.clock,
                proofs: proofs, profile: c.profile, observer: c.observer, tokenCache: store)
        }
        if case .introspection = c.tokens { jwtValidator = nil }
        validator = jwtValidator
        verifiedTokens = jwtValidator?.tokenCache
        if let introspection {
            var endpoint = introspection.endpoint
            if endpoint == nil {
                endpoint = try await discovery.metadata(for: c.issuer).introspectionEndpoint
            }
            guard let endpoint else {
                throw OIDCError(.discoveryMissingField, "the issuer publishes no introspection_endpoint")
            }
            let jwtResponse = introspection.signedAnswers.flatMap { requirement in
                keys.map { keys in
                    var settings = TokenIntrospector.JWTResponse(issuer: c.issuer, keys: keys, requirement: requirement)
                    settings.decryptionKeys = introspection.decryptionKeys
                    settings.encryption = introspection.encryption
                    return settings
                }
            }
            introspector = try TokenIntrospector(
                endpoint: endpoint, issuer: c.issuer, authentication: introspection.authentication,
                transport: transport, audience: introspection.audience ?? .contains(c.audience),
                jwtResponse: jwtResponse, cache: introspection.cache, leeway: c.leeway,
                clock: c.clock, proofs: proofs, observer: c.observer)
        } else {
            introspector = nil
        }
        issuer = c.issuer
        audience = c.audience
        realm = c.realm
        resourceMetadata = c.resourceMetadata
    }

    /// Checks the access token of one request: the validated token, or the answer to send.
    /// - Parameters:
    ///   - method: the request's HTTP method (a DPoP proof's `htm`).
    ///   - url: the URL the client addressed this request to (a DPoP proof's `htu`; query and fragment ignored).
    ///   - headers: the request's header fields (`Authorization`, `DPoP`).
    ///   - requiredScopes: the scopes this resource requires; a token lacking one is refused with 403.
    ///   - dpopNonce: the nonce this server requires in DPoP proofs, if any: a proof without it is refused with
    ///     `use_dpop_nonce` and `DPoP-Nonce` (RFC 9449 §9).
    ///   - clientCertificate: the TLS client certificate of the connection, for certificate-bound tokens (RFC 8705).
    /// - Returns: ``Decision/allowed(_:)`` or ``Decision/refused(_:)``; an unreachable issuer or introspection endpoint
    ///   is a 503 refusal, with the error in ``AccessTokenRefusal/cause``.
    public func check(
        method: String, url: URL, headers: HeaderFields, requiredScopes: Set<String> = [],
        dpopNonce: String? = nil, clientCertificate: ClientCertificate = .notPresented
    ) async -> Decision {
        do {
            return .allowed(
                try await validate(
                    method: method, url: url, headers: headers, requiredScopes: requiredScopes,
                    dpopNonce: dpopNonce, clientCertificate: clientCertificate))
        } catch {
            return .refused(refusal(for: error, requestHeaders: headers, requiredScopes: requiredScopes, dpopNonce: dpopNonce))
        }
    }

    /// The rules of ``check(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)``, their failure thrown.
    package func validate(
        method: String, url: URL, headers: HeaderFields, requiredScopes: Set<String> = [],
        dpopNonce: String? = nil, clientCertificate: ClientCertificate = .notPresented
    ) async throws -> ValidatedAccessToken {
        let nonce: DPoPProofValidator.NonceRule = dpopNonce.map { .required($0) } ?? .notRequired
        if let validator, introspector == nil || Self.carriesCompactJWS(headers) {
            let presented = try await validator.validate(
                method: method, url: url, headers: headers, requiredScopes: requiredScopes,
                dpopNonce: nonce, clientCertificate: clientCertificate)
            return ValidatedAccessToken(source: .jwt(presented.token), scheme: presented.scheme, proof: presented.proof)
        }
        guard let introspector else {  // unreachable: a guard holds a validator, an introspector or both
            throw OIDCError(.missingBearerToken, "the resource server accepts no kind of access token")
        }
        let presented = try await introspector.validate(
            method: method, url: url, headers: headers, requiredScopes: requiredScopes,
            dpopNonce: nonce, clientCertificate: clientCertificate)
        return ValidatedAccessToken(source: .introspection(presented.introspection), scheme: presented.scheme, proof: presented.proof)
    }

    /// The answer to a request refused with `error`: the one table, ``AccessTokenRefusal``, with this guard's
    /// `algs`, `realm` and `resource_metadata`.
    package func refusal(
        for error: any Error, requestHeaders: HeaderFields, requiredScopes: Set<String>,
        dpopNonce: String?
    ) -> AccessTokenRefusal {
        let cause =
            error as? OIDCError
            ?? OIDCError(.transport, "the access token could not be checked: \(type(of: error)) failed")
        let refusal = AccessTokenRefusal(
            error: cause, requestHeaders: requestHeaders, requiredScopes: requiredScopes,
            dpopAlgorithms: proofs.challengeAlgorithms, dpopNonce: dpopNonce, realm: realm)
        return resourceMetadata.map { refusal.advertising(resourceMetadata: $0) } ?? refusal
    }

    /// Whether the request's token is a compact JWS (two dots): with both kinds accepted, those are verified locally.
    private static func carriesCompactJWS(_ headers: HeaderFields) -> Bool {
        guard let credentials = try? BearerTokenExtractor.credentials(headers) else { return true }  // refused on the JWT path
        return credentials.token.utf8.reduce(0) { $1 == UInt8(ascii: ".") ? $0 + 1 : $0 } == 2
    }

    /// The RFC 9728 metadata document this resource server publishes: `resource` (default: the audience),
    /// `authorization_servers` = [issuer], `bearer_methods_supported` = `["header"]`, `dpop_signing_alg_values_supported`
    /// = the proof algorithms, and the scopes given. Serve ``/OIDCCore/ProtectedResourceMetadata/jsonString`` at
    /// ``/OIDCCore/ProtectedResourceDiscovery/metadataURL(forResource:)`` and set ``Configuration/resourceMetadata`` to that URL.
    /// - Parameters:
    ///   - resource: the resource identifier; `nil`: the audience.
    ///   - scopes: `scopes_supported`; `nil`: not published.
    ///   - authorizationDetailsTypes: `authorization_details_types_supported` (RFC 9396); `nil`: not published.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidIssuerURL` / `.insecureURL` when the resource identifier is not an
    ///   https URL (http on loopback) without a fragment.
    public func protectedResourceMetadata(
        resource: String? = nil, scopes: [String]? = nil,
        authorizationDetailsTypes: [String]? = nil
    ) throws -> ProtectedResourceMetadata {
        try ProtectedResourceMetadata.forResourceServer(
            resource: resource ?? audience, issuer: issuer, proofs: proofs,
            scopes: scopes, authorizationDetailsTypes: authorizationDetailsTypes)
    }
}
