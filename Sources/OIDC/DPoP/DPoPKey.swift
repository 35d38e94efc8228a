import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The private key a client proves possession of with DPoP (RFC 9449), with
/// what every proof needs precomputed: the algorithm, the `jwk` header (public
/// members only) and the RFC 7638 thumbprint (`jkt`, the `dpop_jkt` value).
///
/// `description`, `dump` and `Mirror` show the algorithm and thumbprint, never key material.
public struct DPoPKey: Sendable, CustomStringConvertible, CustomReflectable {
    /// The private key (asymmetric; never an `oct` secret).
    public let privateKey: JWK
    /// The JWS algorithm of every proof.
    public let algorithm: JWSAlgorithm
    /// The RFC 7638 SHA-256 thumbprint of the public key: `cnf.jkt` of bound
    /// tokens and the `dpop_jkt` authorization request parameter.
    public let thumbprint: String
    /// The `jwk` header member: the key's defining public members only.
    let publicJWKHeader: JSONObject
    /// The key, algorithm and `typ`/`alg`/`jwk` header, checked and encoded once.
    let signer: PreparedJWSSigner

    /// Uses `key` for DPoP. The algorithm is `algorithm` or, when `nil`, the
    /// key's own: ES256/ES384/ES512 by curve, EdDSA for Ed25519 (Ed25519 when the key's `alg` says so,
    /// RFC 9864), the `alg` of an ML-DSA key, PS256 for RSA.
    /// - Throws: ``/OIDCCore/OIDCError`` `.dpopProofFailed` for a public or symmetric key,
    ///   or an algorithm the key does not admit.
    public init(key: JWK, algorithm: JWSAlgorithm? = nil) throws {
        guard key.isPrivate, key.keyType != .oct else {
            throw OIDCError(.dpopProofFailed, "a DPoP key must be an asymmetric private key (got \(key.keyType) \(key.isPrivate ? "private" : "public"))")
        }
        let chosen: JWSAlgorithm
        if let algorithm {
            chosen = algorithm
        } else {
            switch key.keyType {
            case .ec(let curve): chosen = curve.algorithm
            case .ed25519: chosen = key.algorithm == JWSAlgorithm.ed25519.rawValue ? .ed25519 : .eddsa
            case .mlDSA(let set): chosen = set.algorithm
            case .rsa, .oct, .x25519: chosen = .ps256
            }
        }
        guard key.admits(chosen), chosen.family != .hmac else {
            throw OIDCError(.dpopProofFailed, "a \(key.keyType) key cannot make \(chosen) DPoP proofs")
        }
        var header = JSONObject()
        let jwk = key.publicJWK
        for name in ["kty", "crv", "x", "y", "n", "e"] { if let value = jwk[name] { header[name] = value } }
        var signingKey = key
        signingKey.keyID = nil  // the proof header carries the key itself, not a kid
        do {
            signer = try PreparedJWSSigner(key: signingKey, algorithm: chosen, header: ["typ": "dpop+jwt", "jwk": .object(header)])
        } catch let error as JOSEError {
            throw OIDCError(.dpopProofFailed, "the key cannot sign \(chosen) DPoP proofs", joseError: error)
        }
        privateKey = key
        self.algorithm = chosen
        publicJWKHeader = header
        thumbprint = key.thumbprint()
    }

    /// A new key: P-256 (ES256) unless another kind is asked for.
    public static func generate(_ spec: JWK.GenerationSpec = .ec(.p256)) throws -> DPoPKey {
        do {
            return try DPoPKey(key: JWK.generate(spec))
        } catch let error as JOSEError {
            throw OIDCError(.dpopProofFailed, "the DPoP key could not be generated", joseError: error)
        }
    }

    /// e.g. `DPoPKey(ES256, jkt: 0ZcOCORZ...)`.
    public var description: String { "DPoPKey(\(algorithm.rawValue), jkt: \(thumbprint))" }
    /// No children: `dump` shows nothing secret.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
