import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An OpenID Connect ID Token (OpenID Connect Core §2): the compact JWS, its
/// header, and its claims, typed.
///
/// Parsing reads the token but trusts nothing: use ``IDTokenValidator`` to get
/// a token whose signature and claims were checked. Every registered claim is
/// read at parse time; one of the wrong JSON type fails the parse with
/// `.claimTypeMismatch` naming the claim, and an absent one is `nil`.
/// Other claims are read with ``claim(_:as:)``, ``get(parameter:)`` or ``decode(_:)``.
///
/// `description` shows the algorithm only: never claims or the token.
public struct IDToken: Sendable, CustomStringConvertible {
    /// The compact serialization, as received.
    public let compact: String
    /// The protected header.
    public let header: JOSEHeader
    /// All claims.
    public let claims: JWTClaims

    /// `iss`
    public let issuer: String?
    /// `sub`
    public let subject: String?
    /// `aud`, a single string or an array, always as an array (empty when absent).
    public let audience: [String]
    /// Whether `aud` was present.
    public let hasAudience: Bool
    /// `exp`
    public let expiresAt: Date?
    /// `iat`
    public let issuedAt: Date?
    /// `nbf`
    public let notBefore: Date?
    /// `auth_time`
    public let authTime: Date?
    /// `nonce`
    public let nonce: String?
    /// `acr`
    public let authenticationContextClass: String?
    /// `amr`
    public let authenticationMethods: [String]?
    /// `azp`
    public let authorizedParty: String?
    /// `at_hash`
    public let accessTokenHash: String?
    /// `c_hash`
    public let codeHash: String?
    /// `sid` (OpenID Connect Front-/Back-Channel Logout)
    public let sessionID: String?
    /// `jti`
    public let jwtID: String?

    /// `name`
    public let name: String?
    /// `given_name`
    public let givenName: String?
    /// `family_name`
    public let familyName: String?
    /// `middle_name`
    public let middleName: String?
    /// `nickname`
    public let nickname: String?
    /// `preferred_username`
    public let preferredUsername: String?
    /// `profile`
    public let profile: String?
    /// `picture`
    public let picture: String?
    /// `website`
    public let website: String?
    /// `email`
    public let email: String?
    /// `email_verified`
    public let emailVerified: Bool?
    /// `gender`
    public let gender: String?
    /// `birthdate`
    public let birthdate: String?
    /// `zoneinfo`
    public let zoneinfo: String?
    /// `locale`
    public let locale: String?
    /// `phone_number`
    public let phoneNumber: String?
    /// `phone_number_verified`
    public let phoneNumberVerified: Bool?
    /// `address`
    public let address: Address?
    /// `updated_at`
    public let updatedAt: Date?

    /// Parses an ID Token without verifying it.
    /// - Parameters:
    ///   - compact: the compact JWS.
    ///   - limits: size and nesting limits.
    ///   - providerProfile: the provider whose documented claim forms are read (Auth0's ISO 8601 `updated_at`,
    ///     Apple's string booleans): the same rule as ``IDTokenValidator`` with ``IDTokenValidator/Configuration/profile``;
    ///     `nil` (default): the standard forms only.
    /// - Throws: ``/OIDCCore/OIDCError`` `.malformedIDToken` (not a compact JWS with a JSON
    ///   object payload) or `.claimTypeMismatch` (a registered claim of the wrong type, named).
    public init(_ compact: String, limits: JOSELimits = .default, providerProfile: ProviderProfile? = nil) throws {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(compact, limits: limits)
        } catch let error as JOSEError {
            throw OIDCError(.malformedIDToken, "the ID Token is not a compact JWS", joseError: error)
        }
        try self.init(jws: jws, compact: compact, limits: limits, providerProfile: providerProfile)
    }

    /// Reads the claims of an already parsed JWS; `providerProfile` admits the provider's documented claim forms.
    init(jws: CompactJWS, compact: String, limits: JOSELimits = .default, providerProfile: ProviderProfile? = nil) throws {
        let claims: JWTClaims
        do {
            claims = try JWTClaims(payload: jws.payload, limits: limits)
        } catch let error as JOSEError {
            throw OIDCError(.malformedIDToken, "the ID Token payload is not a JSON object", joseError: error)
        }
        self.compact = compact
        self.header = jws.header
        self.claims = claims
        do {
            issuer = try claims.issuer
            subject = try claims.subject
            let audience = try claims.audience
            self.audience = audience ?? []
            hasAudience = audience != nil
            expiresAt = try claims.expiresAt
            issuedAt = try claims.issuedAt
            notBefore = try claims.notBefore
            authTime = try claims.date("auth_time")
            nonce = try claims.string("nonce")
            authenticationContextClass = try claims.string("acr")
            authenticationMethods = try claims.claim("amr", as: [String].self)
            authorizedParty = try claims.string("azp")
            accessTokenHash = try claims.string("at_hash")
            codeHash = try claims.string("c_hash")
            sessionID = try claims.string("sid")
            jwtID = try claims.jwtID
            name = try claims.string("name")
            givenName = try claims.string("given_name")
            familyName = try claims.string("family_name")
            middleName = try claims.string("middle_name")
            nickname = try claims.string("nickname")
            preferredUsername = try claims.string("preferred_username")
            profile = try claims.string("profile")
            picture = try claims.string("picture")
            website = try claims.string("website")
            email = try claims.string("email")
            emailVerified = try ProviderClaimForms.bool(claims, "email_verified", strings: providerProfile?.readsBooleanStrings == true)
            gender = try claims.string("gender")
            birthdate = try claims.string("birthdate")
            zoneinfo = try claims.string("zoneinfo")
            locale = try claims.string("locale")
            phoneNumber = try claims.string("phone_number")
            phoneNumberVerified = try claims.claim("phone_number_verified", as: Bool.self)
            address = try claims.claim("address", as: Address.self)
            updatedAt = try ProviderClaimForms.date(claims, "updated_at", iso8601: providerProfile?.readsISO8601UpdatedAt == true)
        } catch let error as JOSEError {
            throw IDToken.claimError(error)
        }
    }

    /// The signing algorithm named by the header (`nil` when unsupported or `none`).
    public var algorithm: JWSAlgorithm? { header.algorithmName.flatMap(JWSAlgorithm.init(rawValue:)) }

    /// e.g. `IDToken(alg RS256)`.
    public var description: String { "IDToken(alg \(algorithm?.rawValue ?? "unsupported"))" }

    static func claimError(_ error: JOSEError) -> OIDCError {
        let name = error.member.map { "claim \"\($0.prefix(64))\"" } ?? "a claim"
        let what = error.reason.hasSuffix(NumericDate.rangeText) ? "is outside the NumericDate range \(NumericDate.rangeText)" : "has the wrong JSON type"
        return OIDCError(.claimTypeMismatch, "\(name) \(what)", joseError: error)
    }
}
