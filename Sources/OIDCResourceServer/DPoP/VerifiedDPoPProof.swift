import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A DPoP proof that passed ``DPoPProofValidator``: the public key it proves
/// possession of and the claims that were checked. Holds no access token.
public struct VerifiedDPoPProof: Sendable, CustomStringConvertible {
    /// The public key from the `jwk` header (never private).
    public let key: JWK
    /// The key's RFC 7638 SHA-256 thumbprint: what a bound token's `cnf.jkt` holds.
    public let thumbprint: String
    /// The algorithm the proof was signed with.
    public let algorithm: JWSAlgorithm
    /// `jti`
    public let jwtID: String
    /// `htm`
    public let method: String
    /// `htu`, as sent.
    public let uri: String
    /// `iat`
    public let issuedAt: Date
    /// Every claim.
    public let claims: JWTClaims

    /// e.g. `VerifiedDPoPProof(ES256, jkt: 0ZcO..., GET https://rs/x)`.
    public var description: String { "VerifiedDPoPProof(\(algorithm.rawValue), jkt: \(thumbprint), \(method) \(uri))" }
}
