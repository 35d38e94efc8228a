/// What a verifier accepts. The defaults follow the rules of this toolkit:
/// algorithms come from the key, RSA keys of at least 2048 bits, HMAC secrets
/// at least as long as the hash output, no unknown `crit`, no `b64: false`.
public struct JWSVerificationPolicy: Sendable {
    /// The caller's allow-list; `nil` means every algorithm the key admits.
    public var allowedAlgorithms: Set<JWSAlgorithm>?
    /// Smallest RSA modulus accepted, in bits.
    public var minimumRSAKeyBits: Int
    /// Accept HMAC secrets shorter than the hash output (RFC 7518 §3.2 forbids it).
    public var allowsShortHMACKeys: Bool
    /// Critical header extensions (`crit`) the caller understands and checks itself.
    public var understoodCriticalHeaders: Set<String>
    /// Accept RFC 7797 unencoded payloads (`b64: false`, which must be listed in `crit`).
    public var allowsUnencodedPayload: Bool
    /// Accept key sets that mix `oct` secrets with asymmetric keys.
    public var allowsMixedKeySets: Bool
    /// Input limits.
    public var limits: JOSELimits

    /// Creates a policy.
    public init(
        allowedAlgorithms: Set<JWSAlgorithm>? = nil, minimumRSAKeyBits: Int = 2048, allowsShortHMACKeys: Bool = false,
        understoodCriticalHeaders: Set<String> = [], allowsUnencodedPayload: Bool = false,
        allowsMixedKeySets: Bool = false, limits: JOSELimits = .default
    ) {
        self.allowedAlgorithms = allowedAlgorithms
        self.minimumRSAKeyBits = minimumRSAKeyBits
        self.allowsShortHMACKeys = allowsShortHMACKeys
        self.understoodCriticalHeaders = understoodCriticalHeaders
        self.allowsUnencodedPayload = allowsUnencodedPayload
        self.allowsMixedKeySets = allowsMixedKeySets
        self.limits = limits
    }

    /// The safe defaults.
    public static let `default` = JWSVerificationPolicy()

    /// The algorithm a token may be verified with under this key, or a typed error
    /// saying why not. The header's `alg` only selects among what the key admits.
    func algorithm(named name: String?, for key: JWK) throws -> JWSAlgorithm {
        guard let name else { throw JOSEError(.invalidHeader, "the header has no \"alg\"", member: "alg") }
        return try check(try JWSAlgorithm(headerValue: name), for: key)
    }

    /// As ``algorithm(named:for:)`` for `header`'s `alg`, recognised when the header was read.
    func algorithm(of header: JOSEHeader, for key: JWK) throws -> JWSAlgorithm {
        guard let algorithm = header.signatureAlgorithm else { return try algorithm(named: header.algorithmName, for: key) }
        return try check(algorithm, for: key)
    }

    /// The policy's and the key's rules for `algorithm`.
    private func check(_ algorithm: JWSAlgorithm, for key: JWK) throws -> JWSAlgorithm {
        // A scan, not a hash: the set holds a few cases, and hashing the raw value costs more on every token.
        if let allowedAlgorithms, !allowedAlgorithms.contains(where: { $0 == algorithm }) {
            throw JOSEError(.algorithmNotAllowed, "\(algorithm) is not in the allowed algorithms", member: "alg")
        }
        guard key.admits(algorithm) else {
            if let keyAlg = key.algorithm, keyAlg != algorithm.rawValue {
                throw JOSEError(.keyAlgorithmMismatch, "the key is restricted to \"\(keyAlg.jsonSafePrefix)\" but the token uses \(algorithm)", member: "alg")
            }
            throw JOSEError(.keyAlgorithmMismatch, "an \(key.keyType) key cannot verify \(algorithm)", member: "alg")
        }
        guard key.permits(operation: "verify") else {
            throw JOSEError(.keyUsageNotPermitted, "the key's use/key_ops do not permit verification")
        }
        try checkStrength(of: key, for: algorithm)
        return algorithm
    }

    func checkStrength(of key: JWK, for algorithm: JWSAlgorithm) throws {
        switch key.keyType {
        case .rsa where key.sizeInBits < minimumRSAKeyBits:
            throw JOSEError(.weakKey, "RSA key of \(key.sizeInBits) bits is below the minimum of \(minimumRSAKeyBits)")
        case .oct:
            let bytes = key.sizeInBits / 8
            if bytes == 0 { throw JOSEError(.weakKey, "the HMAC secret is empty") }
            if let digest = algorithm.digest, bytes < digest.outputLength, !allowsShortHMACKeys {
                throw JOSEError(
                    .weakKey, "HMAC secret of \(bytes) bytes is shorter than the \(digest.outputLength)-byte output of \(algorithm) (RFC 7518 §3.2)")
            }
        default:
            break
        }
    }
}
