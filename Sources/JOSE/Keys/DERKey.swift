/// Key components read from DER, before libcrypto sees them. Integers are
/// unsigned big-endian magnitudes; the EC point is the encoded point as stored.
enum DERKey {
    case rsa(n: [UInt8], e: [UInt8], d: [UInt8]?, factors: RSAFactors?)
    case ec(JWK.Curve, point: [UInt8]?, d: [UInt8]?)
    /// An `OKP` key (RFC 8410): Ed25519 or X25519, each half 32 raw bytes.
    case octetKeyPair(OctetKeyPairCurve, publicKey: [UInt8]?, privateKey: [UInt8]?)

    /// The public components alone, when the structure carries them
    /// (`nil` for an EC, Ed25519 or X25519 private key stored without its public key).
    var publicHalf: DERKey? {
        switch self {
        case .rsa(let n, let e, _, _): return .rsa(n: n, e: e, d: nil, factors: nil)
        case .ec(let curve, let point?, _): return .ec(curve, point: point, d: nil)
        case .octetKeyPair(let curve, let publicKey?, _): return .octetKeyPair(curve, publicKey: publicKey, privateKey: nil)
        default: return nil
        }
    }
}

/// The CRT members of a two-prime RSA private key: p, q, dp, dq, qi
/// (PKCS#1 prime1, prime2, exponent1, exponent2, coefficient).
struct RSAFactors {
    let p: [UInt8], q: [UInt8], dp: [UInt8], dq: [UInt8], qi: [UInt8]
}
