#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Claim checks for a JWT: times with a leeway against an injectable clock,
/// and optional issuer, audience and required-claim checks.
public struct JWTValidationPolicy: Sendable {
    /// The current time; inject a fixed clock in tests or to replay a check.
    public var clock: @Sendable () -> Date
    /// Allowed clock skew, in seconds, for `exp`, `nbf` and `iat`. NaN or a negative value
    /// counts as 0 and a value above one day (86 400 s) as one day, so no value can switch
    /// the time checks off.
    public var leeway: TimeInterval
    /// The `iss` the token must carry, when set.
    public var issuer: String?
    /// A value `aud` must contain, when set.
    public var audience: String?
    /// Claims that must be present.
    public var requiredClaims: [String]
    /// Whether `exp` must be present.
    public var requiresExpiration: Bool

    /// Creates options (leeway 60 s, system clock, no identity checks).
    public init(
        clock: @escaping @Sendable () -> Date = { Date() }, leeway: TimeInterval = 60, issuer: String? = nil,
        audience: String? = nil, requiredClaims: [String] = [], requiresExpiration: Bool = false
    ) {
        self.clock = clock
        self.leeway = leeway
        self.issuer = issuer
        self.audience = audience
        self.requiredClaims = requiredClaims
        self.requiresExpiration = requiresExpiration
    }

    /// Time checks only, with the system clock.
    public static let `default` = JWTValidationPolicy()
}

extension JWTClaims {
    /// Applies the checks, throwing the first failure as a typed ``JOSEError``
    /// (`.expired`, `.notYetValid`, `.issuedInFuture`, `.issuerMismatch`,
    /// `.audienceMismatch`, `.missingClaim`, `.claimTypeMismatch`).
    public func validate(_ options: JWTValidationPolicy = .default) throws {
        let now = options.clock()
        for name in options.requiredClaims where self[name] == nil {
            throw JOSEError(.missingClaim, "required claim \"\(name.jsonSafePrefix)\" is missing", member: name)
        }
        try validateTimes(now: now, leeway: options.leeway, requiresExpiration: options.requiresExpiration, requiresIssuedAt: false)
        // In place first (no String built when the claim is written as expected), then the typed read decides.
        if let expected = options.issuer, !stringClaim("iss", isExactly: expected) {
            guard let issuer = try issuer else { throw JOSEError(.missingClaim, "the token has no \"iss\"", member: "iss") }
            guard issuer == expected else {
                throw JOSEError(.issuerMismatch, "\"iss\" is \"\(issuer.jsonSafePrefix)\", expected \"\(expected.jsonSafePrefix)\"", member: "iss")
            }
        }
        if let expected = options.audience, !audienceContainsExactly(expected) {
            guard let audience = try audience else { throw JOSEError(.missingClaim, "the token has no \"aud\"", member: "aud") }
            guard audience.contains(expected) else {
                throw JOSEError(.audienceMismatch, "\"aud\" does not contain \"\(expected.jsonSafePrefix)\"", member: "aud")
            }
        }
    }
}
