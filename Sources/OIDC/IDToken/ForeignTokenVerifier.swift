#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// Verifies a token signed by another, trusted issuer — e.g. the `port_token` a
/// new carrier's ID Token carries in its `aka` claim after an account migration,
/// signed by the previous carrier.
///
/// The token's `iss` must be one of ``trustedIssuers`` (exact match). Its key is
/// found by `kid` in that issuer's JWK Set, located through the issuer's discovery
/// document (or given directly, for offline use), and only asymmetric algorithms
/// the issuer advertises are accepted (`RS256` when it advertises none).
/// `exp` is required; `iat`/`nbf` are checked when present; `aud` always, unless the caller
/// says ``ExpectedAudience/anyAudience``.
public struct ForeignTokenVerifier: Sendable {
    enum Keys: Sendable {
        case discovery(Discovery, JWKSetCacheRegistry)
        case fixed([String: JWKSet])
    }

    /// The issuers whose tokens are accepted.
    public let trustedIssuers: Set<String>
    /// The current time.
    public let clock: @Sendable () -> Date
    /// Allowed clock skew in seconds.
    public let leeway: TimeInterval
    let keys: Keys

    /// A verifier that finds each trusted issuer's keys through its discovery document.
    public init(trustedIssuers: Set<String>, transport: any HTTPTransport,
                keyCacheConfiguration: JWKSetCache.Configuration = .default,
                clock: @escaping @Sendable () -> Date = { Date() }, leeway: TimeInterval = 60) {
        self.init(trustedIssuers: trustedIssuers,
                  discovery: Discovery(transport: transport, clock: clock),
                  keyCaches: JWKSetCacheRegistry(transport: transport, configuration: keyCacheConfiguration),
                  clock: clock, leeway: leeway)
    }

    /// A verifier sharing an existing discovery client and key-cache registry.
    public init(trustedIssuers: Set<String>, discovery: Discovery, keyCaches: JWKSetCacheRegistry,
                clock: @escaping @Sendable () -> Date = { Date() }, leeway: TimeInterval = 60) {
        self.trustedIssuers = trustedIssuers
        self.keys = .discovery(discovery, keyCaches)
        self.clock = clock
        self.leeway = leeway
    }

    /// An offline verifier: each trusted issuer's JWK Set given directly.
    public init(trustedKeySets: [String: JWKSet], clock: @escaping @Sendable () -> Date = { Date() }, leeway: TimeInterval = 60) {
        self.trustedIssuers = Set(trustedKeySets.keys)
        self.keys = .fixed(trustedKeySets)
        self.clock = clock
        self.leeway = leeway
    }

    /// An offline verifier from JSON documents: for each trusted issuer, a JWK Set or a single JWK.
    /// - Throws: ``OIDCError`` `.jwksInvalidDocument` naming no key material when a document is neither.
    public init(trustedKeyDocuments: [String: String], clock: @escaping @Sendable () -> Date = { Date() }, leeway: TimeInterval = 60) throws {
        var sets: [String: JWKSet] = [:]
        for (issuer, json) in trustedKeyDocuments {
            do {
                let object = try JSONParser.parseObject(Array(json.utf8), what: "a key document")
                sets[issuer] = object["keys"] != nil ? try JWKSet(json: json) : JWKSet(keys: [try JWK(jsonObject: object)])
            } catch let error as JOSEError {
                throw OIDCError(.jwksInvalidDocument, "the key document for a trusted issuer is neither a JWK Set nor a JWK", joseError: error)
            }
        }
        self.init(trustedKeySets: sets, clock: clock, leeway: leeway)
    }

    /// The `port_token` string inside an ID Token's `aka` claim, if any.
    /// - Throws: `.claimTypeMismatch` when `aka` is not an object or `port_token` not a string.
    public static func portToken(in idToken: IDToken) throws -> String? {
        try idToken.claim(path: ["aka", "port_token"], as: String.self)
    }

    /// Verifies `token` and returns it parsed.
    /// - Parameters:
    ///   - token: the compact JWS.
    ///   - audience: a value `aud` must contain, or the explicit ``ExpectedAudience/anyAudience``.
    /// - Throws: ``OIDCError`` `.untrustedIssuer`, `.missingIssuer`, discovery and key-set errors,
    ///   signature errors, `.missingExpiry`, `.expired`, `.issuedInFuture`, `.notYetValid`,
    ///   `.missingAudience`, `.audienceMismatch`.
    public func verify(_ token: String, audience: ExpectedAudience) async throws -> IDToken {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token)
        } catch let error as JOSEError {
            throw OIDCError(.malformedIDToken, "the token is not a compact JWS", joseError: error)
        }
        let algorithm = try VerificationErrors.algorithm(of: jws.header)
        let parsed = try IDToken(jws: jws, compact: token)
        guard let issuer = parsed.issuer else { throw OIDCError(.missingIssuer, "the token has no \"iss\"") }
        guard trustedIssuers.contains(issuer) else {
            throw OIDCError(.untrustedIssuer, "the token's issuer is not one of the trusted issuers")
        }
        guard algorithm.family != .hmac else {
            throw OIDCError(.algorithmNotAllowed, "a token from another issuer cannot be verified with a shared secret")
        }
        switch keys {
        case .discovery(let discovery, let registry):
            let metadata = try await discovery.metadata(for: issuer)
            guard let jwksURI = metadata.jwksURI else {
                throw OIDCError(.jwksURIMissing, "the issuer publishes no jwks_uri")
            }
            let allowed = (metadata.idTokenSigningAlgorithms ?? [.rs256]).filter { $0.family != .hmac }
            let cache = try await registry.cache(for: jwksURI)
            try await cache.verify(jws, policy: JWSVerificationPolicy(allowedAlgorithms: allowed))
        case .fixed(let sets):
            guard let set = sets[issuer] else { throw OIDCError(.untrustedIssuer, "no key set for the token's issuer") }
            try GivenKeyVerification.verify(jws, with: set,
                                            policy: JWSVerificationPolicy(allowedAlgorithms: Set(JWSAlgorithm.allCases.filter { $0.family != .hmac })))
        }
        try TimeClaims.check(parsed.claims, now: clock(), leeway: leeway, requiresExpiration: true, requiresIssuedAt: false,
                             what: "the token")
        if case .contains(let audience) = audience {
            guard parsed.hasAudience else { throw OIDCError(.missingAudience, "the token has no \"aud\"") }
            guard parsed.audience.contains(audience) else { throw OIDCError(.audienceMismatch, "the token's \"aud\" does not contain the expected audience") }
        }
        return parsed
    }
}
