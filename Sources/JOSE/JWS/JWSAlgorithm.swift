/// A JWS signature algorithm (RFC 7518 §3, RFC 8037, RFC 9864, RFC 9964).
///
/// `none` has no case: an unsecured JWS can never be verified by this library.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// HMAC with SHA-256.
    case hs256 = "HS256"
    /// HMAC with SHA-384.
    case hs384 = "HS384"
    /// HMAC with SHA-512.
    case hs512 = "HS512"
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    case rs384 = "RS384"
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    case rs512 = "RS512"
    /// RSASSA-PSS with SHA-256, MGF1 with SHA-256, 32-byte salt.
    case ps256 = "PS256"
    /// RSASSA-PSS with SHA-384, MGF1 with SHA-384, 48-byte salt.
    case ps384 = "PS384"
    /// RSASSA-PSS with SHA-512, MGF1 with SHA-512, 64-byte salt.
    case ps512 = "PS512"
    /// ECDSA on P-256 with SHA-256.
    case es256 = "ES256"
    /// ECDSA on P-384 with SHA-384.
    case es384 = "ES384"
    /// ECDSA on P-521 with SHA-512.
    case es512 = "ES512"
    /// EdDSA (RFC 8037); with this library, Ed25519.
    case eddsa = "EdDSA"
    /// Ed25519 under its fully specified name (RFC 9864).
    case ed25519 = "Ed25519"
    /// ML-DSA-44 (RFC 9964; FIPS 204), with an `AKP` key; needs OpenSSL 3.5 or later at run time (``isAvailable``).
    case mlDSA44 = "ML-DSA-44"
    /// ML-DSA-65 (RFC 9964), with an `AKP` key; needs OpenSSL 3.5 or later at run time.
    case mlDSA65 = "ML-DSA-65"
    /// ML-DSA-87 (RFC 9964), with an `AKP` key; needs OpenSSL 3.5 or later at run time.
    case mlDSA87 = "ML-DSA-87"

    /// The family of primitives an algorithm belongs to.
    public enum Family: Sendable, Hashable {
        /// HS*
        case hmac
        /// RS*
        case rsaPKCS1
        /// PS*
        case rsaPSS
        /// ES*
        case ecdsa
        /// EdDSA / Ed25519
        case eddsa
        /// ML-DSA-44/65/87 (post-quantum, `AKP` keys)
        case mlDSA
    }

    /// The algorithm's family.
    public var family: Family {
        switch self {
        case .hs256, .hs384, .hs512: return .hmac
        case .rs256, .rs384, .rs512: return .rsaPKCS1
        case .ps256, .ps384, .ps512: return .rsaPSS
        case .es256, .es384, .es512: return .ecdsa
        case .eddsa, .ed25519: return .eddsa
        case .mlDSA44, .mlDSA65, .mlDSA87: return .mlDSA
        }
    }

    /// The hash the algorithm uses (`nil` for EdDSA and ML-DSA, which hash internally).
    public var digest: DigestAlgorithm? {
        switch self {
        case .hs256, .rs256, .ps256, .es256: return .sha256
        case .hs384, .rs384, .ps384, .es384: return .sha384
        case .hs512, .rs512, .ps512, .es512: return .sha512
        case .eddsa, .ed25519, .mlDSA44, .mlDSA65, .mlDSA87: return nil
        }
    }

    /// Whether this process can sign and verify with the algorithm: always, except ML-DSA, which needs a
    /// libcrypto that provides it (OpenSSL 3.5 or later), probed once at run time. Otherwise every use
    /// throws ``JOSEError`` `.algorithmUnavailable`.
    public var isAvailable: Bool { family != .mlDSA || MLDSA.isAvailable }

    /// The `alg` value.
    public var description: String { rawValue }

    /// Parses an `alg` header value.
    /// - Throws: ``JOSEError`` `.unsupportedAlgorithm`; `none` in any spelling is refused by name.
    public init(headerValue name: String) throws {
        if let algorithm = JWSAlgorithm.named(name) {
            self = algorithm
            return
        }
        if name.lowercased() == "none" {
            throw JOSEError(.unsupportedAlgorithm, "the unsecured algorithm \"none\" is never accepted", member: "alg")
        }
        throw JOSEError(.unsupportedAlgorithm, "algorithm \"\(name.jsonSafePrefix)\" is not supported", member: "alg")
    }

    /// The case whose `alg` value is exactly `name`. Equivalent to `init(rawValue:)`,
    /// which compares the string with each raw value in turn; this compares the
    /// name's packed bytes and count with each algorithm's.
    static func named(_ name: String) -> JWSAlgorithm? {
        guard let packed = PackedName(name) else {
            // The ML-DSA names are longer than a packed name holds: compared byte by byte (never by
            // String's ==, which would take a canonically equivalent non-ASCII spelling).
            guard name.utf8.count == 9 else { return nil }
            return [JWSAlgorithm.mlDSA44, .mlDSA65, .mlDSA87].first { name.utf8.elementsEqual($0.rawValue.utf8) }
        }
        for (value, algorithm) in packedNames where value == packed { return algorithm }
        return nil
    }

    private static let packedNames: [(PackedName, JWSAlgorithm)] = allCases.compactMap { algorithm in
        PackedName(algorithm.rawValue).map { ($0, algorithm) }
    }

    /// Slot index for per-algorithm context pools (a switch: `allCases` would build an array per call).
    var slot: Int {
        switch self {
        case .hs256: return 0
        case .hs384: return 1
        case .hs512: return 2
        case .rs256: return 3
        case .rs384: return 4
        case .rs512: return 5
        case .ps256: return 6
        case .ps384: return 7
        case .ps512: return 8
        case .es256: return 9
        case .es384: return 10
        case .es512: return 11
        case .eddsa: return 12
        case .ed25519: return 13
        case .mlDSA44: return 14
        case .mlDSA65: return 15
        case .mlDSA87: return 16
        }
    }
}
