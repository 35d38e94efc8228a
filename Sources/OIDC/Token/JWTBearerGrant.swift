import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JWT authorization grant (RFC 7523 §2.1): an assertion that the client presents as
/// the grant, signed with a JOSE key. `description` never shows key material.
public struct JWTBearerAssertion: Sendable, CustomStringConvertible, CustomReflectable {
    /// `iss`: who issued the assertion (often the client id).
    public var issuer: String
    /// `sub`: the principal the token is requested for.
    public var subject: String
    /// `aud`: the authorization server (its issuer identifier or token endpoint URL).
    public var audience: String
    /// Seconds from issue to `exp` (default 60).
    public var lifetime: TimeInterval
    /// Further claims (they cannot replace the ones above, `iat` or `jti`).
    public var additionalClaims: JSONObject
    /// The signing key.
    public let key: JWK
    /// The signing algorithm (must fit the key).
    public let algorithm: JWSAlgorithm

    /// Creates an assertion description; ``TokenClient/jwtBearerGrant(_:scope:resources:)`` signs it with the client's clock.
    public init(
        issuer: String, subject: String, audience: String, key: JWK, algorithm: JWSAlgorithm, lifetime: TimeInterval = 60,
        additionalClaims: JSONObject = JSONObject()
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.key = key
        self.algorithm = algorithm
        self.lifetime = lifetime
        self.additionalClaims = additionalClaims
    }

    /// The signed assertion: `iss`, `sub`, `aud`, `iat` (the whole second of `now` minus one, as
    /// in every JWT the client signs), `exp` = `iat` + lifetime, and a random `jti` (RFC 7523 §3).
    /// - Throws: ``OIDCError`` `.invalidTokenRequest` (bad lifetime, a clock whose `iat`/`exp` do
    ///   not fit a 64-bit NumericDate, a claim that would replace a
    ///   standard one, signing failure with the JOSE error attached), `.randomGenerationFailed`.
    package func sign(now: Date) throws -> String {
        guard lifetime > 0, lifetime <= 86_400 else {
            throw OIDCError(.invalidTokenRequest, "the assertion lifetime must be between 0 and 86400 seconds")
        }
        let standard: Set<String> = ["iss", "sub", "aud", "iat", "exp", "jti"]
        var claims: JSONObject = ["iss": .string(issuer), "sub": .string(subject), "aud": .string(audience)]
        guard let times = AssertionTimes.issuedAndExpiry(now: now, lifetime: lifetime, rounding: .up) else {
            throw OIDCError(
                .invalidTokenRequest,
                "the assertion's iat/exp do not fit in a 64-bit NumericDate "
                    + "(the clock reads \(now.timeIntervalSince1970.wholeText) s)")
        }
        claims["iat"] = .integer(times.issuedAt)
        claims["exp"] = .integer(times.expiresAt)
        claims["jti"] = .string(try RandomText.base64URL(byteCount: 16))
        for member in additionalClaims {
            guard !standard.contains(member.name) else {
                throw OIDCError(.invalidTokenRequest, "additional claim \"\(member.name)\" would replace a standard assertion claim")
            }
            claims[member.name] = member.value
        }
        do {
            return try JWT.sign(claims, key: key, algorithm: algorithm)
        } catch let error as JOSEError {
            throw OIDCError(.invalidTokenRequest, "the JWT bearer assertion could not be signed", joseError: error)
        }
    }

    /// The claims and the algorithm, never the key.
    public var customMirror: Mirror {
        Mirror(self, children: ["issuer": issuer, "subject": subject, "audience": audience, "algorithm": algorithm, "lifetime": lifetime])
    }

    /// e.g. `JWTBearerAssertion(ES256, iss: "svc", sub: "alice", aud: "https://as.example")`.
    public var description: String { "JWTBearerAssertion(\(algorithm), iss: \"\(issuer)\", sub: \"\(subject)\", aud: \"\(audience)\")" }
}

extension TokenClient {
    /// The RFC 7523 §2.1 grant type.
    package static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// The JWT bearer grant with an assertion signed now (with the client's clock).
    public func jwtBearerGrant(_ assertion: JWTBearerAssertion, scope: String? = nil, resources: [URL] = []) async throws -> TokenResponse {
        try await jwtBearerGrant(assertion: try assertion.sign(now: clock()), scope: scope, resources: resources)
    }

    /// The JWT bearer grant with an assertion made elsewhere. The configured client
    /// authentication is applied as well (RFC 7523 §2.1 allows both).
    package func jwtBearerGrant(assertion: String, scope: String? = nil, resources: [URL] = []) async throws -> TokenResponse {
        var parameters: [(name: String, value: String)] = [("assertion", assertion)]
        if let scope { parameters.append(("scope", scope)) }
        return try await requestToken(grantType: Self.jwtBearerGrantType, parameters: parameters, resources: resources)
    }
}
