/// What a JWE decrypter accepts. The defaults: the key management algorithm
/// comes from the key (a token's `alg` only selects among what the key admits),
/// RSA keys of at least 2048 bits, no unknown `crit`, no `zip`. `RSA1_5` and
/// `PBES2-*` are never accepted, whatever the policy.
public struct JWEDecryptionPolicy: Sendable {
    /// The caller's allow-list of key management algorithms; `nil` means every one the key admits.
    public var allowedKeyAlgorithms: Set<JWEKeyAlgorithm>?
    /// The caller's allow-list of content encryptions; `nil` means all of ``JWEContentEncryption``.
    public var allowedContentEncryptions: Set<JWEContentEncryption>?
    /// Smallest RSA modulus accepted, in bits.
    public var minimumRSAKeyBits: Int
    /// Critical header extensions (`crit`) the caller understands and checks itself.
    public var understoodCriticalHeaders: Set<String>

    /// Creates a policy.
    /// - Parameters:
    ///   - allowedKeyAlgorithms: key management algorithms accepted; `nil` for all the key admits.
    ///   - allowedContentEncryptions: content encryptions accepted; `nil` for all.
    ///   - minimumRSAKeyBits: smallest RSA modulus accepted (at least 2048 is recommended).
    ///   - understoodCriticalHeaders: `crit` extensions the caller handles.
    public init(
        allowedKeyAlgorithms: Set<JWEKeyAlgorithm>? = nil, allowedContentEncryptions: Set<JWEContentEncryption>? = nil,
        minimumRSAKeyBits: Int = 2048, understoodCriticalHeaders: Set<String> = []
    ) {
        self.allowedKeyAlgorithms = allowedKeyAlgorithms
        self.allowedContentEncryptions = allowedContentEncryptions
        self.minimumRSAKeyBits = minimumRSAKeyBits
        self.understoodCriticalHeaders = understoodCriticalHeaders
    }

    /// The safe defaults.
    public static let `default` = JWEDecryptionPolicy()
}

extension JWK {
    /// Whether the key's type, size and `alg` member admit the JWE key management
    /// `algorithm` with content encryption `encryption`: RSA keys admit the
    /// RSA-OAEP algorithms, EC and X25519 keys the ECDH-ES ones, `oct` keys `dir` when their
    /// length is the CEK length and `A*KW`/`A*GCMKW` when it is the wrap key length. A key
    /// with an `alg` member admits only that algorithm; a `dir` key's `alg` may instead
    /// name a content encryption (`A128GCM`, as in RFC 7520 §5.6), and then admits `dir` with that one only.
    public func admits(_ algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption) -> Bool {
        let byType: Bool
        switch (keyType, algorithm) {
        case (.rsa, .rsaOAEP), (.rsa, .rsaOAEP256): byType = true
        case (.ec, _), (.x25519, _): byType = algorithm.isECDH
        case (.oct, .direct): byType = sizeInBits == encryption.keyLength * 8
        case (.oct, .a128KW), (.oct, .a192KW), (.oct, .a256KW): byType = sizeInBits == (algorithm.keyWrapLength ?? 0) * 8
        case (.oct, .a128GCMKW), (.oct, .a192GCMKW), (.oct, .a256GCMKW): byType = sizeInBits == (algorithm.gcmKeyWrap?.keyLength ?? 0) * 8
        default: byType = false
        }
        guard byType, let restriction = self.algorithm else { return byType }
        // A `dir` key may name its content encryption instead (RFC 7520 §5.6): it then admits only that one.
        if algorithm == .direct, restriction == encryption.rawValue { return true }
        return restriction == algorithm.rawValue
    }

    /// Whether `use` (absent or `enc`) and `key_ops` permit JWE decryption
    /// (`decrypting`) or encryption with `algorithm`. `key_ops` must hold
    /// `decrypt`/`encrypt` for `dir`, `unwrapKey`/`wrapKey` for key wrapping and
    /// RSA, `deriveKey`, `deriveBits` or `unwrapKey`/`wrapKey` for ECDH-ES.
    public func permitsJWE(_ algorithm: JWEKeyAlgorithm, decrypting: Bool) -> Bool {
        if let use, use != "enc" { return false }
        if let keyOperations, algorithm.keyOperations(decrypting: decrypting).isDisjoint(with: keyOperations) { return false }
        return true
    }

    /// The key-side checks shared by decryption and encryption.
    func checkJWE(_ algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption, decrypting: Bool, minimumRSAKeyBits: Int) throws {
        guard admits(algorithm, encryption: encryption) else {
            if let keyAlg = self.algorithm, keyAlg != algorithm.rawValue {
                throw JOSEError(.keyAlgorithmMismatch, "the key is restricted to \"\(keyAlg.jsonSafePrefix)\" but the JWE uses \(algorithm)", member: "alg")
            }
            throw JOSEError(.keyAlgorithmMismatch, "a \(sizeInBits)-bit \(keyType) key cannot be used with \(algorithm) and \(encryption)", member: "alg")
        }
        guard permitsJWE(algorithm, decrypting: decrypting) else {
            throw JOSEError(.keyUsageNotPermitted, "the key's use/key_ops do not permit \(decrypting ? "decryption" : "encryption") with \(algorithm)")
        }
        if decrypting, !isPrivate { throw JOSEError(.invalidKey, "decryption with \(algorithm) needs a private or secret key") }
        if keyType == .rsa, sizeInBits < minimumRSAKeyBits {
            throw JOSEError(.weakKey, "RSA key of \(sizeInBits) bits is below the minimum of \(minimumRSAKeyBits)")
        }
    }
}
