#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an SD-JWT verifier requires (RFC 9901 §7): the JWS rules for the issuer-signed JWT, the claim
/// checks applied to the processed payload, and, when set, key binding.
public struct SDJWTVerificationPolicy: Sendable {
    /// The JWS rules for the issuer-signed JWT and the KB-JWT (algorithms, key strength, limits); `none` is never accepted.
    public var signature: JWSVerificationPolicy
    /// The claim checks (clock, leeway, `iss`, required claims), applied to the processed payload so that
    /// disclosed `exp`/`nbf` count too. Its `audience` is not used: the audience of a presentation is the KB-JWT's.
    public var claims: JWTValidationPolicy
    /// Key binding, required when set: without it a presentation without a KB-JWT is accepted and a KB-JWT is not checked.
    public var keyBinding: SDJWTKeyBinding?
    /// The `typ` the issuer-signed JWT must carry (compared case-insensitively, `application/` optional), when set.
    public var issuerJWTType: String?

    /// A policy; the defaults check the signature and times only.
    public init(
        signature: JWSVerificationPolicy = .default, claims: JWTValidationPolicy = .default, keyBinding: SDJWTKeyBinding? = nil,
        issuerJWTType: String? = nil
    ) {
        self.signature = signature
        self.claims = claims
        self.keyBinding = keyBinding
        self.issuerJWTType = issuerJWTType
    }
}

/// The key binding a verifier requires (RFC 9901 §7.3): a KB-JWT (`typ: kb+jwt`) signed by the holder key of
/// `cnf.jwk`, for this audience and nonce, issued within `maximumAge` (plus the leeway) of now, with the `sd_hash` of
/// the presentation it ends.
public struct SDJWTKeyBinding: Sendable, Hashable {
    /// The `aud` the KB-JWT must carry (the verifier's identifier).
    public var audience: String
    /// The `nonce` the KB-JWT must carry (the verifier's challenge).
    public var nonce: String
    /// How old `iat` may be, in seconds (default 300).
    public var maximumAge: TimeInterval

    /// A key-binding requirement.
    public init(audience: String, nonce: String, maximumAge: TimeInterval = 300) {
        self.audience = audience
        self.nonce = nonce
        self.maximumAge = maximumAge
    }
}
