/// A JWE key management algorithm (RFC 7518 §4): how the content encryption
/// key (CEK) reaches the recipient.
///
/// Only the algorithms below are implemented. `RSA1_5` (padding oracles) and
/// `PBES2-*` (password-based) are refused by design with
/// ``JOSEError/Code-swift.enum/unsupportedAlgorithm``.
public enum JWEKeyAlgorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `dir`: the shared `oct` key is the CEK itself.
    case direct = "dir"
    /// `A128KW`: AES Key Wrap (RFC 3394) with a 128-bit `oct` key.
    case a128KW = "A128KW"
    /// `A192KW`: AES Key Wrap with a 192-bit `oct` key.
    case a192KW = "A192KW"
    /// `A256KW`: AES Key Wrap with a 256-bit `oct` key.
    case a256KW = "A256KW"
    /// `A128GCMKW`: the CEK encrypted with AES-128-GCM under an `oct` key; `iv` and `tag` in the header.
    case a128GCMKW = "A128GCMKW"
    /// `A192GCMKW`: as `A128GCMKW` with AES-192.
    case a192GCMKW = "A192GCMKW"
    /// `A256GCMKW`: as `A128GCMKW` with AES-256.
    case a256GCMKW = "A256GCMKW"
    /// `RSA-OAEP`: RSAES-OAEP with SHA-1 and MGF1-SHA-1.
    case rsaOAEP = "RSA-OAEP"
    /// `RSA-OAEP-256`: RSAES-OAEP with SHA-256 and MGF1-SHA-256.
    case rsaOAEP256 = "RSA-OAEP-256"
    /// `ECDH-ES`: ephemeral-static ECDH; the Concat KDF output is the CEK.
    case ecdhES = "ECDH-ES"
    /// `ECDH-ES+A128KW`: the Concat KDF output wraps the CEK with A128KW.
    case ecdhESA128KW = "ECDH-ES+A128KW"
    /// `ECDH-ES+A192KW`: the Concat KDF output wraps the CEK with A192KW.
    case ecdhESA192KW = "ECDH-ES+A192KW"
    /// `ECDH-ES+A256KW`: the Concat KDF output wraps the CEK with A256KW.
    case ecdhESA256KW = "ECDH-ES+A256KW"

    /// The `alg` header value.
    public var description: String { rawValue }

    /// Parses an `alg` header value; names refused by design get a reason of their own.
    /// - Throws: ``JOSEError`` `.unsupportedAlgorithm`.
    init(headerValue name: String) throws {
        if let algorithm = JWEKeyAlgorithm(rawValue: name) {
            self = algorithm
            return
        }
        switch name {
        case "RSA1_5":
            throw JOSEError(.unsupportedAlgorithm, "RSA1_5 (RSAES-PKCS1-v1_5) is refused by design: it is open to padding-oracle attacks", member: "alg")
        case _ where name.hasPrefix("PBES2-"):
            throw JOSEError(.unsupportedAlgorithm, "PBES2 password-based key management is refused by design", member: "alg")
        default:
            throw JOSEError(.unsupportedAlgorithm, "JWE key management algorithm \"\(name.jsonSafePrefix)\" is not supported", member: "alg")
        }
    }

    /// Whether the CEK travels in the JWE Encrypted Key segment (empty for `dir` and `ECDH-ES`).
    var carriesEncryptedKey: Bool { self != .direct && self != .ecdhES }

    /// The AES Key Wrap key length in bytes, for the `*KW` algorithms.
    var keyWrapLength: Int? {
        switch self {
        case .a128KW, .ecdhESA128KW: return 16
        case .a192KW, .ecdhESA192KW: return 24
        case .a256KW, .ecdhESA256KW: return 32
        default: return nil
        }
    }

    /// The AES-GCM that encrypts the CEK, for the `A*GCMKW` algorithms.
    var gcmKeyWrap: JWEContentEncryption? {
        switch self {
        case .a128GCMKW: return .a128GCM
        case .a192GCMKW: return .a192GCM
        case .a256GCMKW: return .a256GCM
        default: return nil
        }
    }

    /// Whether this is one of the ECDH-ES algorithms.
    var isECDH: Bool {
        switch self {
        case .ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW: return true
        default: return false
        }
    }

    /// The `key_ops` values (RFC 7517 §4.3) that admit this algorithm, for decryption or encryption.
    func keyOperations(decrypting: Bool) -> Set<String> {
        switch self {
        case .direct: return decrypting ? ["decrypt"] : ["encrypt"]
        case .a128KW, .a192KW, .a256KW, .a128GCMKW, .a192GCMKW, .a256GCMKW, .rsaOAEP, .rsaOAEP256: return decrypting ? ["unwrapKey"] : ["wrapKey"]
        case .ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW:
            return decrypting ? ["deriveKey", "deriveBits", "unwrapKey"] : ["deriveKey", "deriveBits", "wrapKey"]
        }
    }
}

/// A JWE content encryption algorithm (RFC 7518 §5): how the plaintext is encrypted with the CEK.
public enum JWEContentEncryption: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `A128CBC-HS256`: AES-128-CBC with an HMAC-SHA-256 tag truncated to 16 bytes (RFC 7518 §5.2.3).
    case a128CBCHS256 = "A128CBC-HS256"
    /// `A192CBC-HS384`: AES-192-CBC with an HMAC-SHA-384 tag truncated to 24 bytes.
    case a192CBCHS384 = "A192CBC-HS384"
    /// `A256CBC-HS512`: AES-256-CBC with an HMAC-SHA-512 tag truncated to 32 bytes.
    case a256CBCHS512 = "A256CBC-HS512"
    /// `A128GCM`: AES-128-GCM with a 96-bit IV and a full 128-bit tag.
    case a128GCM = "A128GCM"
    /// `A192GCM`: AES-192-GCM with a 96-bit IV and a full 128-bit tag.
    case a192GCM = "A192GCM"
    /// `A256GCM`: AES-256-GCM with a 96-bit IV and a full 128-bit tag.
    case a256GCM = "A256GCM"

    /// The `enc` header value.
    public var description: String { rawValue }

    /// The CEK length in bytes (both halves for CBC-HS).
    public var keyLength: Int {
        switch self {
        case .a128CBCHS256: return 32
        case .a192CBCHS384: return 48
        case .a256CBCHS512: return 64
        case .a128GCM: return 16
        case .a192GCM: return 24
        case .a256GCM: return 32
        }
    }

    /// The IV length in bytes.
    var ivLength: Int { isGCM ? 12 : 16 }

    /// The authentication tag length in bytes.
    var tagLength: Int {
        switch self {
        case .a128CBCHS256, .a128GCM, .a192GCM, .a256GCM: return 16
        case .a192CBCHS384: return 24
        case .a256CBCHS512: return 32
        }
    }

    var isGCM: Bool {
        switch self {
        case .a128GCM, .a192GCM, .a256GCM: return true
        default: return false
        }
    }

    /// Parses an `enc` header value.
    /// - Throws: ``JOSEError`` `.unsupportedAlgorithm`.
    init(headerValue name: String) throws {
        guard let encryption = JWEContentEncryption(rawValue: name) else {
            throw JOSEError(.unsupportedAlgorithm, "JWE content encryption \"\(name.jsonSafePrefix)\" is not supported", member: "enc")
        }
        self = encryption
    }
}
