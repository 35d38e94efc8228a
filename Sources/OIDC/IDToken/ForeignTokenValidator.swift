import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Validates a token signed by another issuer you trust, such as a previous carrier's `port_token`.
///
/// After an account migration a new carrier's ID Token carries, in its `aka` claim, a `port_token`
/// signed by the previous carrier. The token's `iss` must be one of `trustedIssuers` exactly. Its
/// key comes from that issuer's ``/OIDCCore/IssuerKeys``: the JWK Set found through the issuer's discovery
/// document, or keys given for offline use. Only asymmetric algorithms are accepted, and with
/// discovery only those the issuer advertises, `RS256` when it advertises none. `exp` is required;
/// `iat` and `nbf` are checked when present; `aud` always, unless the caller says ``ExpectedAudience/anyAudience``.
public struct ForeignTokenValidator: Sendable {
    enum Keys: Sendable {
        case discovery(Discovery, JWKSetCacheRegistry)
        case fixed([String: IssuerKeys])
    }

    /// The issuers whose tokens are accepted.
    package let trustedIssuers: Set<String>
    /// The current time.
    let clock: @Sendable () -> Date
    /// Allowed clock skew in seconds.
    let leeway: TimeInterval
    let keys: Keys
    /// Whether `exp` is required (it is checked whenever present); `false` for claims providers' JWTs
    /// (OpenID Connect Core §5.6.2), which usually carry none.
    package var requiresExpiration = true

    /// A validator that finds each trusted issuer's keys through its discovery document.
    /// - Parameters:
    ///   - trustedIssuers: the issuer identifiers whose tokens are accepted.
    ///   - transport: the HTTP transport for discovery and the key sets.
    ///   - keyCacheConfiguration: the key caches' timing.
    ///   - clock: the current time.
    ///   - leeway: allowed clock skew in seconds.
    public init(
        trustedIssuers: Set<String>, transport: any HTTPTransport,
        keyCacheConfiguration: JWKSetCache.Configuration = .default,
        clock: @escaping @Sendable () -> Date = { Date() }, leeway: TimeInterval = 60
    ) {
        self.init(
            trustedIssuers: trustedIssuers,
            discovery: Discovery(transport: transport, clock: clock),
            keyCaches: JWKSetCacheRegistry(transport: transport, configuration: keyCacheConfiguration),
            clock: clock, leeway: leeway)
    }

    /// A validator sharing an existing discovery client and key-cache registry.
    package init(
        trustedIssuers: Set<String>, discovery: Discovery, keyCaches: JWKSetCacheRegistry,
        clock: @escaping @Sendable () -> Date = { Date() }, leeway: TimeInterval = 60
    ) {
        self.trustedIssuers = trustedIssuers
        self.keys = .discovery(discovery, keyCaches)
        self.clock = clock
        self.leeway = leeway
    }

    /// An offline validator: each trusted issuer's keys given directly, every asymmetric algorithm accepted.
    public init(trustedKeys: [String: IssuerKeys], clock: @escaping @Sendable () -> Date = { Date() }, leeway: TimeInterval = 60) {
        self.trustedIssuers = Set(trustedKeys.keys)
        self.keys = .fixed(trustedKeys)
        self.clock = clock
        self.leeway = leeway
    }

    /// An offline validator from JSON documents: for each trusted issuer, a JWK Set or a single JWK.
    /// - Throws: ``/OIDCCore/OIDCError`` `.jwksInvalidDocument` when a document is neither.
    public init(trustedKeyDocuments: [String: String], clock: @escaping @Sendable () -> Date = { Date() }, leeway: TimeInterval = 60) throws {
        var keys: [String: IssuerKeys] = [:]
        for (issuer, json) in trustedKeyDocuments {
            do {
                let object = try JSONParser.parseObject(Array(json.utf8), what: "a key document")
                keys[issuer] = .keySet(object["keys"] != nil ? try JWKSet(json: json) : JWKSet(keys: [try JWK(jsonObject: object)]))
            } catch let error as JOSEError {
                throw OIDCError(.jwksInvalidDocument, "the key document for a trusted issuer is neither a JWK Set nor a JWK", joseError: error)
            }
        }
        self.init(trustedKeys: keys, clock: clock, leeway: leeway)
    }

    /// The `port_token` string inside an ID Token's `aka` claim, if any.
    /// - Throws: `.claimTypeMismatch` when `aka` is not an object or `port_token` not a string.
    public static func portToken(in idToken: IDToken) throws -> String? {
        try idToken.claim(path: ["aka", "port_token"], as: String.self)
    }

    /// Validates `token` and returns it parsed.
    /// - Parameters:
    ///   - token: the compact JWS.
    ///   - audience: a value `aud` must contain, or the explicit ``ExpectedAudience/anyAudience``.
    /// - Throws: ``/OIDCCore/OIDCError`` of category `invalidInput`, such as `.untrustedIssuer`, `.invalidSignature` or
    ///   `.expired`; discovery and key-set errors when the issuer's keys cannot be had.
    public func validate(_ token: String, audience: ExpectedAudience) async throws -> IDToken {
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
        let issuerKeys: IssuerKeys
        var allowed = IssuerKeys.asymmetricAlgorithms
        switch keys {
        case .discovery(let discovery, let registry):
            let metadata = try await discovery.metadata(for: issuer)
            guard let jwksURI = metadata.jwksURI else {
                throw OIDCError(.jwksURIMissing, "the issuer publishes no jwks_uri")
            }
            allowed = (metadata.idTokenSigningAlgorithms ?? [.rs256]).filter { $0.family != .hmac }
            issuerKeys = .cache(try await registry.cache(for: jwksURI))
        case .fixed(let sets):
            guard let keys = sets[issuer] else { throw OIDCError(.untrustedIssuer, "no key set for the token's issuer") }
            issuerKeys = keys
        }
        try await issuerKeys.verifySignature(jws, policy: JWSVerificationPolicy(allowedAlgorithms: allowed))
        try TimeClaims.check(
            parsed.claims, now: clock(), leeway: leeway, requiresExpiration: requiresExpiration, requiresIssuedAt: false,
            what: "the token")
        if case .contains(let audience) = audience {
            guard parsed.hasAudience else { throw OIDCError(.missingAudience, "the token has no \"aud\"") }
            guard parsed.audience.contains(audience) else { throw OIDCError(.audienceMismatch, "the token's \"aud\" does not contain the expected audience") }
        }
        return parsed
    }
}
