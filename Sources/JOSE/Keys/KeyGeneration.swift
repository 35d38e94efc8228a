import CLibCrypto

extension JWK {
    /// What kind of private key ``generate(_:)`` makes.
    public enum GenerationSpec: Sendable, Hashable, CustomStringConvertible {
        /// An EC key on a NIST curve (ES256, ES384, ES512).
        case ec(Curve)
        /// An Ed25519 key (EdDSA).
        case ed25519
        /// An X25519 key (JWE `ECDH-ES` key agreement, RFC 8037).
        case x25519
        /// An RSA key with a modulus of `bits` bits (at least 2048) and exponent 65537.
        case rsa(bits: Int)
        /// An `AKP` ML-DSA key (RFC 9964), its `alg` set; needs OpenSSL 3.5 or later at run time.
        case mlDSA(MLDSAParameterSet)

        /// e.g. `EC P-256`, `OKP Ed25519`, `RSA 3072`.
        public var description: String {
            switch self {
            case .ec(let curve): return "EC \(curve.rawValue)"
            case .ed25519: return "OKP Ed25519"
            case .x25519: return "OKP X25519"
            case .rsa(let bits): return "RSA \(bits)"
            case .mlDSA(let set): return "AKP \(set.rawValue)"
            }
        }
    }

    /// The smallest RSA modulus ``generate(_:)`` makes.
    public static let minimumGeneratedRSABits = 2048
    /// The largest RSA modulus ``generate(_:)`` makes (bounds the time a call can take).
    public static let maximumGeneratedRSABits = 8192

    /// Generates a new private key with libcrypto's default random generator.
    ///
    /// The key has no `kid`, `use`, `alg` or `key_ops`; set them as needed
    /// (``thumbprint(using:)`` is a common `kid`). Its private half stays inside
    /// libcrypto until exported explicitly (``privateJWK()``, ``privateKeyPEM()``).
    /// - Throws: ``JOSEError`` `.weakKey` for an RSA size below 2048 bits,
    ///   `.unsupportedKey` above 8192 bits, `.algorithmUnavailable` for ML-DSA on a libcrypto without it,
    ///   `.cryptoFailure` when libcrypto fails.
    public static func generate(_ spec: GenerationSpec) throws -> JWK {
        switch spec {
        case .mlDSA(let set):
            return try MLDSA.generate(set)
        case .ec(let curve):
            let key = try KeyGenerator.generate(type: "EC") { context in
                EVP_PKEY_CTX_set_group_name(context, curve.openSSLName) == 1
            }
            let size = curve.coordinateSize
            guard let x = KeyBuilder.bigNumber(key, "qx", size: size), let y = KeyBuilder.bigNumber(key, "qy", size: size) else {
                throw cryptoFailure("read the generated EC public point")
            }
            return JWK(
                keyType: .ec(curve), isPrivate: true, sizeInBits: key.bits, storage: .asymmetric(key),
                publicMembers: [("crv", curve.rawValue), ("kty", "EC"), ("x", Base64URL.encode(x)), ("y", Base64URL.encode(y))])
        case .ed25519:
            let key = try KeyGenerator.generate(type: "ED25519") { _ in true }
            guard let x = KeyBuilder.rawKey(key, private: false) else { throw cryptoFailure("read the generated Ed25519 public key") }
            return JWK(
                keyType: .ed25519, isPrivate: true, sizeInBits: 256, storage: .asymmetric(key),
                publicMembers: [("crv", "Ed25519"), ("kty", "OKP"), ("x", Base64URL.encode(x))])
        case .x25519:
            let key = try KeyGenerator.generate(type: "X25519") { _ in true }
            guard let x = KeyBuilder.rawKey(key, private: false) else { throw cryptoFailure("read the generated X25519 public key") }
            return JWK(
                keyType: .x25519, isPrivate: true, sizeInBits: 256, storage: .asymmetric(key),
                publicMembers: [("crv", "X25519"), ("kty", "OKP"), ("x", Base64URL.encode(x))])
        case .rsa(let bits):
            guard bits >= minimumGeneratedRSABits else {
                throw JOSEError(.weakKey, "RSA keys are generated with at least \(minimumGeneratedRSABits) bits, not \(bits)")
            }
            guard bits <= maximumGeneratedRSABits else {
                throw JOSEError(.unsupportedKey, "RSA keys are generated with at most \(maximumGeneratedRSABits) bits, not \(bits)")
            }
            let key = try KeyGenerator.generate(type: "RSA") { context in
                EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1
            }
            guard let n = KeyBuilder.bigNumber(key, "n"), let e = KeyBuilder.bigNumber(key, "e") else {
                throw cryptoFailure("read the generated RSA public key")
            }
            return JWK(
                keyType: .rsa, isPrivate: true, sizeInBits: key.bits, storage: .asymmetric(key),
                publicMembers: [("e", Base64URL.encode(e)), ("kty", "RSA"), ("n", Base64URL.encode(n))])
        }
    }
}

/// `EVP_PKEY_keygen` through a context made by name (OpenSSL 3.0 EVP API).
enum KeyGenerator {
    /// Generates a key of `type`; `configure` sets the type's parameters
    /// (curve, modulus size) on the initialised context and says whether it could.
    static func generate(type: StaticString, configure: (OpaquePointer) -> Bool) throws -> EVPKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type.cString, nil) else { throw cryptoFailure("create a \(type) key context") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw cryptoFailure("initialise \(type) key generation") }
        guard configure(context) else { throw cryptoFailure("configure \(type) key generation") }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw cryptoFailure("generate a \(type) key") }
        return EVPKey(taking: key)
    }
}
