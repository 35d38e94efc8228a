/// The keys a recipient (an OpenID Connect client, say) decrypts with: several
/// private or secret keys, so that a new key can be published before the old
/// one is retired (rotation without downtime), and optionally the client secret,
/// from which OpenID Connect Core §10.2 derives the key for symmetric key
/// management (`A*KW`, `A*GCMKW`, `dir`).
///
/// A token is decrypted with the keys that fit it, in this order:
/// - when the JWE names a `kid`: the keys with that `kid` first; then, because a `kid` is only
///   a hint (glewlwyd, for one, names the recipient key by a value it computes itself, which no
///   key file carries), the keys without a `kid` (a key read from a PEM file has none), then the
///   keys with another `kid`;
/// - when it names none: every key, in the order given;
/// - then, for symmetric key management, the key derived from the client secret.
///
/// A key fits when it is private (or secret), its type, size and `alg` admit the token's
/// `alg` and `enc` (``JWK/admits(_:encryption:)``), and its `use`/`key_ops` permit
/// decryption; for ECDH-ES, it is also on the curve of the sender's ephemeral key. Each
/// fitting key is tried until one decrypts; the key management algorithm therefore always
/// comes from a key, never from the token alone, and a wrong key fails authenticated
/// decryption cleanly (`decryption_failed`) before the next is tried.
/// The description shows counts only, never key material.
public struct JWEDecryptionKeys: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The decryption keys, in order of preference.
    public let keys: [JWK]
    /// The client secret's octets, when symmetric key management is accepted.
    private let clientSecret: SecretBytes?

    /// Creates a key set.
    /// - Parameters:
    ///   - keys: private or secret keys, in order of preference (the newest first, say). Public keys never fit.
    ///   - clientSecret: the client secret, when the provider may encrypt with a key derived from it
    ///     (OpenID Connect Core §10.2); `nil` refuses symmetric key management unless an `oct` key is in `keys`.
    public init(keys: [JWK], clientSecret: String? = nil) {
        self.keys = keys
        self.clientSecret = clientSecret.map { SecretBytes(Array($0.utf8)) }
    }

    /// Creates a key set from a JWK Set (its usable keys, in order).
    /// - Parameters:
    ///   - set: the private keys.
    ///   - clientSecret: as ``init(keys:clientSecret:)``.
    public init(_ set: JWKSet, clientSecret: String? = nil) {
        self.init(keys: set.keys, clientSecret: clientSecret)
    }

    private init(keys: [JWK], secret: SecretBytes?) {
        self.keys = keys
        self.clientSecret = secret
    }

    /// The same keys with `clientSecret` for symmetric key management, unless a client secret is already held.
    /// - Parameter clientSecret: the client secret, or `nil` to leave the set as it is.
    /// - Returns: the extended set.
    public func addingClientSecret(_ clientSecret: String?) -> JWEDecryptionKeys {
        guard self.clientSecret == nil, let clientSecret else { return self }
        return JWEDecryptionKeys(keys: keys, secret: SecretBytes(Array(clientSecret.utf8)))
    }

    /// No keys and no client secret: nothing can be decrypted.
    public static let none = JWEDecryptionKeys(keys: [])

    /// Whether the set can decrypt nothing (no key and no client secret).
    public var isEmpty: Bool { keys.isEmpty && clientSecret == nil }

    /// Whether a client secret is held for symmetric key management.
    public var hasClientSecret: Bool { clientSecret != nil }

    /// Counts only.
    public var description: String {
        "JWEDecryptionKeys(\(keys.count) keys\(clientSecret == nil ? "" : ", client secret"))"
    }

    /// As ``description``.
    public var debugDescription: String { description }

    /// The keys that fit `jwe`, in the order they are tried (see the type's documentation).
    /// - Throws: ``JOSEError`` `.unsupportedAlgorithm` for an unknown or refused `alg`/`enc`,
    ///   `.keyUsageNotPermitted` when the keys named by `kid` may not decrypt it, `.keyNotFound` when no key fits.
    public func candidates(for jwe: CompactJWE) throws -> [JWK] {
        let algorithm = try JWEKeyAlgorithm(headerValue: jwe.keyAlgorithmName)
        let encryption = try JWEContentEncryption(headerValue: jwe.encryptionName)
        // ECDH-ES: only a key on the curve of the sender's ephemeral key (`epk.crv`) can agree with it, so keys
        // on other curves (rotation across curves) are not tried, and never fail the whole decryption.
        let ephemeralCurve = algorithm.isECDH ? jwe.header.members["epk"]?.objectValue?["crv"]?.stringValue : nil
        func onEphemeralCurve(_ key: JWK) -> Bool {
            guard let ephemeralCurve else { return true }
            switch key.keyType {
            case .ec(let curve): return curve.rawValue == ephemeralCurve
            case .x25519: return ephemeralCurve == "X25519"
            default: return true
            }
        }
        func fits(_ key: JWK) -> Bool {
            key.isPrivate && key.admits(algorithm, encryption: encryption) && key.permitsJWE(algorithm, decrypting: true)
                && onEphemeralCurve(key)
        }
        var chosen: [JWK]
        var namedButUnfit = false
        if let keyID = jwe.header.keyID {
            // The `kid` is a hint: the keys it names first, then kid-less keys, then keys with another `kid`.
            let named = keys.filter { $0.keyID == keyID }
            chosen = named.filter(fits)
            namedButUnfit = !named.isEmpty && chosen.isEmpty
            chosen += keys.filter { $0.keyID == nil && fits($0) }
            chosen += keys.filter { $0.keyID != nil && $0.keyID != keyID && fits($0) }
        } else {
            chosen = keys.filter(fits)
        }
        if let derived = derivedKey(algorithm: algorithm, encryption: encryption), fits(derived) {
            chosen.append(derived)
        }
        guard chosen.isEmpty else { return chosen }
        if namedButUnfit, let keyID = jwe.header.keyID {
            throw JOSEError(.keyUsageNotPermitted, "the key with kid \"\(keyID.jsonSafePrefix)\" cannot decrypt \(algorithm) + \(encryption)", member: "kid")
        }
        if let keyID = jwe.header.keyID {
            throw JOSEError(.keyNotFound, "no decryption key fits \(algorithm) + \(encryption) (the JWE names kid \"\(keyID.jsonSafePrefix)\")", member: "kid")
        }
        throw JOSEError(.keyNotFound, "no decryption key fits \(algorithm) + \(encryption)")
    }

    /// Decrypts `jwe` with the first fitting key that decrypts it (see the type's documentation).
    /// - Parameters:
    ///   - jwe: the parsed token.
    ///   - policy: the algorithms and limits accepted; applied to every key tried.
    /// - Returns: the plaintext and the key that decrypted it.
    /// - Throws: ``JOSEError``: as ``candidates(for:)`` and ``CompactJWE/decrypt(with:policy:)-(JWK,_)``;
    ///   `.decryptionFailed` when no fitting key decrypts it.
    public func decrypt(_ jwe: CompactJWE, policy: JWEDecryptionPolicy = .default) throws -> (plaintext: [UInt8], key: JWK) {
        var lastError: JOSEError?
        for key in try candidates(for: jwe) {
            do {
                return (try jwe.decrypt(with: key, policy: policy), key)
            } catch let error as JOSEError where Self.isKeySpecific(error.code) {
                lastError = error
            }
        }
        throw lastError ?? JOSEError(.decryptionFailed, "no decryption key decrypted the token")
    }

    /// Parses and decrypts a compact JWE.
    /// - Parameters:
    ///   - token: the compact JWE.
    ///   - policy: the algorithms and limits accepted.
    /// - Returns: the plaintext.
    /// - Throws: as ``CompactJWE/init(_:limits:)`` and ``decrypt(_:policy:)-(CompactJWE,_)``.
    public func decrypt(_ token: String, policy: JWEDecryptionPolicy = .default) throws -> [UInt8] {
        try decrypt(CompactJWE(token), policy: policy).plaintext
    }

    /// Failures that another key might not have: try the next one.
    private static func isKeySpecific(_ code: JOSEError.Code) -> Bool {
        code == .decryptionFailed || code == .weakKey || code == .invalidKey || code == .keyAlgorithmMismatch || code == .keyUsageNotPermitted
    }

    /// The key OpenID Connect Core §10.2 derives from the client secret for symmetric key management.
    private func derivedKey(algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption) -> JWK? {
        guard let clientSecret else { return nil }
        return clientSecret.withBytes { JWK.derivedFromClientSecret(Array($0), algorithm: algorithm, encryption: encryption) }
    }
}

extension JWK {
    /// The symmetric key OpenID Connect Core §10.2 derives from a client secret for
    /// `algorithm` (`A*KW`, `A*GCMKW`) or, for `dir`, for `encryption`: the
    /// SHA-256 (keys up to 256 bits), SHA-384 (up to 384) or SHA-512 hash of the
    /// secret's UTF-8 octets, left-truncated to the key length.
    /// - Parameters:
    ///   - clientSecret: the client secret.
    ///   - algorithm: the key management algorithm.
    ///   - encryption: the content encryption (it fixes the key length for `dir`).
    /// - Returns: the `oct` key, or `nil` when `algorithm` is not symmetric key management.
    public static func derivedFromClientSecret(_ clientSecret: String, algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption) -> JWK? {
        var octets = Array(clientSecret.utf8)
        defer { octets.wipe() }
        return derivedFromClientSecret(octets, algorithm: algorithm, encryption: encryption)
    }

    static func derivedFromClientSecret(_ octets: [UInt8], algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption) -> JWK? {
        let length: Int
        if algorithm == .direct {
            length = encryption.keyLength
        } else if let wrap = algorithm.gcmKeyWrap {
            length = wrap.keyLength
        } else if !algorithm.isECDH, let wrapLength = algorithm.keyWrapLength {
            length = wrapLength
        } else {
            return nil
        }
        let digest: DigestAlgorithm = length <= 32 ? .sha256 : (length <= 48 ? .sha384 : .sha512)
        var hash = digest.hash(octets)
        defer { hash.wipe() }
        return JWK(symmetricKey: Array(hash[0..<length]))
    }
}
