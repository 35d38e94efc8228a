import CLibCrypto

extension JWK {
    /// The ML-DSA parameter sets (FIPS 204) of `AKP` keys (RFC 9964), each with its one JWS algorithm.
    public enum MLDSAParameterSet: String, Sendable, Hashable, CaseIterable {
        /// ML-DSA-44 (NIST security category 2).
        case mlDSA44 = "ML-DSA-44"
        /// ML-DSA-65 (category 3).
        case mlDSA65 = "ML-DSA-65"
        /// ML-DSA-87 (category 5).
        case mlDSA87 = "ML-DSA-87"

        /// The JWS algorithm of the parameter set; an `AKP` key's `alg` names it.
        public var algorithm: JWSAlgorithm {
            switch self {
            case .mlDSA44: return .mlDSA44
            case .mlDSA65: return .mlDSA65
            case .mlDSA87: return .mlDSA87
            }
        }

        /// Bytes of the encoded public key (`pub`).
        public var publicKeyLength: Int {
            switch self {
            case .mlDSA44: return 1312
            case .mlDSA65: return 1952
            case .mlDSA87: return 2592
            }
        }

        /// Bytes of a signature.
        public var signatureLength: Int {
            switch self {
            case .mlDSA44: return 2420
            case .mlDSA65: return 3309
            case .mlDSA87: return 4627
            }
        }

        /// libcrypto's name for the key type and signature algorithm (OpenSSL 3.5 and later).
        var openSSLName: StaticString {
            switch self {
            case .mlDSA44: return "ML-DSA-44"
            case .mlDSA65: return "ML-DSA-65"
            case .mlDSA87: return "ML-DSA-87"
            }
        }
    }
}

/// ML-DSA through libcrypto's EVP interface, present from OpenSSL 3.5 on: every call is made by name
/// (`EVP_PKEY_CTX_new_from_name`, `EVP_PKEY_fromdata`, `EVP_DigestSignInit_ex`), so the code compiles against
/// OpenSSL 3.0 headers and asks the runtime library, once, whether it has the algorithms.
enum MLDSA {
    /// The seed (`priv`) of an `AKP` ML-DSA key: 32 bytes (FIPS 204 ξ).
    static let seedLength = 32

    /// Whether this process's libcrypto provides ML-DSA: probed once, on first use, by fetching the
    /// signature algorithm (`EVP_SIGNATURE_fetch` answers `NULL` before OpenSSL 3.5).
    static let isAvailable: Bool = {
        guard let signature = EVP_SIGNATURE_fetch(nil, "ML-DSA-44", nil) else {
            ERR_clear_error()
            return false
        }
        EVP_SIGNATURE_free(signature)
        return true
    }()

    /// The libcrypto version text, for the refusal's reason.
    static var runtimeVersion: String {
        guard let text = OpenSSL_version(OPENSSL_VERSION) else { return "an unknown libcrypto" }
        return String(cString: text)
    }

    /// Throws `.algorithmUnavailable` when the runtime lacks ML-DSA.
    static func requireAvailable(_ what: String) throws {
        guard isAvailable else {
            throw JOSEError(.algorithmUnavailable, "\(what) needs ML-DSA, which \(runtimeVersion) does not provide (OpenSSL 3.5 or later does)")
        }
    }

    /// The key for `pub` (and its 32-byte seed): built by libcrypto when it has ML-DSA, otherwise a key that
    /// can be listed, compared and thumbprinted but whose every use is refused with `.algorithmUnavailable`.
    static func makeKey(_ set: JWK.MLDSAParameterSet, publicKey: [UInt8], seed: [UInt8]?) throws -> JWK {
        guard publicKey.count == set.publicKeyLength else {
            throw JOSEError(.invalidKey, "an \(set.rawValue) public key is \(set.publicKeyLength) bytes, not \(publicKey.count)", member: "pub")
        }
        if let seed, seed.count != seedLength {
            throw JOSEError(.invalidKey, "an \(set.rawValue) private key (\"priv\") is a \(seedLength)-byte seed", member: "priv")
        }
        var storage = JWK.Storage.unavailable
        if isAvailable {
            let key: EVPKey
            if let seed {
                key = try KeyBuilder.fromData(type: set.openSSLName, isPrivate: true, params: [.octets("seed", seed)])
                guard KeyBuilder.octets(key, "pub") == publicKey else {
                    throw JOSEError(.invalidKey, "the \(set.rawValue) seed does not give the key's \"pub\"", member: "priv")
                }
            } else {
                key = try KeyBuilder.fromData(type: set.openSSLName, isPrivate: false, params: [.octets("pub", publicKey)])
            }
            storage = .asymmetric(key)
        }
        return JWK(
            keyType: .mlDSA(set), isPrivate: seed != nil, sizeInBits: publicKey.count * 8, storage: storage,
            publicMembers: [("alg", set.rawValue), ("kty", "AKP"), ("pub", Base64URL.encode(publicKey))])
    }

    /// A new private key of `set`.
    static func generate(_ set: JWK.MLDSAParameterSet) throws -> JWK {
        try requireAvailable("generating an \(set.rawValue) key")
        let key = try KeyGenerator.generate(type: set.openSSLName) { _ in true }
        guard let publicKey = KeyBuilder.octets(key, "pub") else { throw cryptoFailure("read the generated \(set.rawValue) public key") }
        var jwk = JWK(
            keyType: .mlDSA(set), isPrivate: true, sizeInBits: publicKey.count * 8, storage: .asymmetric(key),
            publicMembers: [("alg", set.rawValue), ("kty", "AKP"), ("pub", Base64URL.encode(publicKey))])
        jwk.algorithm = set.rawValue
        return jwk
    }

    /// The `priv` member (the seed) of a private key, read back from libcrypto.
    static func seed(of key: EVPKey) throws -> [UInt8] {
        guard let seed = KeyBuilder.octets(key, "seed"), seed.count == seedLength else {
            throw JOSEError(.unsupportedKey, "libcrypto does not give this ML-DSA key's seed back (a key imported without one)")
        }
        return seed
    }
}
