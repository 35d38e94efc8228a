#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE
import OIDC

/// Validates JWT access tokens as RFC 9068 §4 requires, for one resource server.
///
/// Checks, in order: the signature with an allowed asymmetric algorithm and the issuer's
/// keys, the time claims (`exp` required; `nbf`, `iat` with the leeway), `typ` (`at+jwt`
/// or `application/at+jwt`: an ID Token or any other JWT is refused), `iss` (exact), `aud`
/// (must contain ``audience``), the presence of `sub`, `client_id`, `iat`, `jti`, and
/// the required scopes. JOSE's `JWT.verify` and `JWTValidationOptions` apply the
/// signature, time, issuer and audience rules; this type adds only what RFC 9068 adds.
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

    /// Receives one ``OIDC/OIDCEvent`` per token validated (``OIDC/OIDCEvent/Kind/accessTokenValidation``: accepted, or refused with the error's code);
    /// `nil` (default): none, and no work beyond a `nil` check.
    public var observer: (any OIDCObserver)? = nil

    private let policy: JWSVerificationPolicy
    private let rules: JWTValidationOptions
    private let timeRules: JWTValidationOptions

    /// Creates a validator.
    /// - Parameters:
    ///   - issuer: the authorization server's issuer identifier.
    ///   - audience: this resource server's identifier (its `resource` URI or configured audience).
    ///   - keys: the issuer's key cache or a fixed key set.
    ///   - allowedAlgorithms: a subset of the asymmetric algorithms; HMAC entries are dropped.
    ///   - leeway: allowed clock skew for the time claims, in seconds.
    ///   - clock: the current time.
    ///   - limits: size and nesting bounds for the token.
    public init(issuer: String, audience: String, keys: IssuerKeys,
                allowedAlgorithms: Set<JWSAlgorithm> = IssuerKeys.asymmetricAlgorithms, leeway: TimeInterval = 60,
                clock: @escaping @Sendable () -> Date = { Date() }, limits: JOSELimits = .default) {
        self.issuer = issuer
        self.audience = audience
        self.keys = keys
        self.allowedAlgorithms = allowedAlgorithms.intersection(IssuerKeys.asymmetricAlgorithms)
        self.leeway = leeway
        self.clock = clock
        self.limits = limits
        policy = JWSVerificationPolicy(allowedAlgorithms: self.allowedAlgorithms, limits: limits)
        // sub, client_id, iat and jti are required by AccessToken(jwt:issuer:), which reads them anyway.
        rules = JWTValidationOptions(clock: clock, leeway: leeway, issuer: issuer, audience: audience, requiresExpiration: true)
        timeRules = JWTValidationOptions(clock: clock, leeway: leeway, requiresExpiration: true)
    }

    /// A validator whose keys come from the issuer's discovery document and a shared key cache.
    /// - Throws: discovery errors, `.jwksURIMissing`, and `.insecureURL` for a non-https `jwks_uri`.
    public static func discover(issuer: String, audience: String, discovery: Discovery, keyCaches: JWKSetCacheRegistry,
                                leeway: TimeInterval = 60, clock: @escaping @Sendable () -> Date = { Date() }) async throws -> AccessTokenValidator {
        let metadata = try await discovery.metadata(for: issuer)
        guard let jwksURI = metadata.jwksURI else { throw OIDCError(.jwksURIMissing, "the issuer publishes no jwks_uri") }
        let cache = try await keyCaches.cache(for: jwksURI)
        return AccessTokenValidator(issuer: issuer, audience: audience, keys: .cache(cache), leeway: leeway, clock: clock)
    }

    /// Whether a `typ` header value names an RFC 9068 access token (case-insensitively,
    /// with or without the `application/` prefix, RFC 7515 §4.1.9).
    public static func isAccessTokenType(_ type: String?) -> Bool {
        guard var type = type?.utf8[...] else { return false }
        let prefix = "application/".utf8
        if type.count > prefix.count, zip(type, prefix).allSatisfy({ lowercased($0) == $1 }) { type = type.dropFirst(prefix.count) }
        return type.count == 6 && zip(type, "at+jwt".utf8).allSatisfy { lowercased($0) == $1 }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }

    /// Validates `token` and checks it carries every scope in `requiredScopes`.
    /// - Returns: the validated token.
    /// - Throws: ``OIDC/OIDCError``: signature and key codes, `.expired`, `.notYetValid`,
    ///   `.issuedInFuture`, `.unexpectedTokenType`, `.issuerMismatch`, `.audienceMismatch`,
    ///   `.missingAccessTokenClaim`, `.claimTypeMismatch`, and `.insufficientScope` (naming the
    ///   missing scopes) — map them to a challenge with ``BearerChallenge/init(error:requiredScopes:realm:)``.
    func validateToken(_ token: String, requiredScopes: Set<String>) async throws -> AccessToken {
        let jwt: JWT
        do {
            jwt = try await keys.verify(token, policy: policy, validation: rules)
        } catch let error as OIDCError where [.issuerMismatch, .audienceMismatch, .missingAccessTokenClaim].contains(error.code) {
            // Say "not an access token" rather than "wrong audience" for an ID Token: the typ
            // decides first. Failures only: one verification on the success path.
            let verified = try await keys.verify(token, policy: policy, validation: timeRules)
            try Self.checkType(verified.header)
            throw error
        }
        try Self.checkType(jwt.header)
        let accessToken = try AccessToken(jwt: jwt, issuer: issuer)
        if !requiredScopes.isEmpty, !accessToken.hasScopes(requiredScopes) {
            try ScopeCheck.require(requiredScopes, granted: accessToken.scopes)  // names the missing ones
        }
        return accessToken
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
