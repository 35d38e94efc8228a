extension CompactJWE {
    /// Decrypts with the one key of `keys` that fits the token: the key whose
    /// `kid` is the header's, or, without a `kid`, the single key that admits the
    /// token's `alg` and `enc` and may decrypt.
    /// - Throws: as ``decrypt(with:policy:)-(JWK,_)``, and `.keyNotFound`, `.ambiguousKey`,
    ///   `.keyUsageNotPermitted` from ``key(in:policy:)``.
    public func decrypt(with keys: JWKSet, policy: JWEDecryptionPolicy = .default) throws -> [UInt8] {
        try decrypt(with: key(in: keys, policy: policy), policy: policy)
    }

    /// The key of `keys` that decrypts this token. Keys whose type, size, `alg`,
    /// `use` or `key_ops` do not admit the token's algorithms, and public keys,
    /// never match; a `kid` shared by several such keys is ambiguous.
    /// - Throws: ``JOSEError`` `.unsupportedAlgorithm`, `.keyNotFound`, `.ambiguousKey`, `.keyUsageNotPermitted`.
    public func key(in keys: JWKSet, policy: JWEDecryptionPolicy = .default) throws -> JWK {
        try JWEKeySelection.key(in: keys, keyID: header.keyID, keyAlgorithmName: keyAlgorithmName, encryptionName: encryptionName)
    }
}

/// The key of a set that decrypts one JWE recipient (shared by the compact and JSON serializations).
enum JWEKeySelection {
    static func key(in keys: JWKSet, keyID: String?, keyAlgorithmName: String, encryptionName: String) throws -> JWK {
        let algorithm = try JWEKeyAlgorithm(headerValue: keyAlgorithmName)
        let encryption = try JWEContentEncryption(headerValue: encryptionName)
        func fits(_ key: JWK) -> Bool {
            key.isPrivate && key.admits(algorithm, encryption: encryption) && key.permitsJWE(algorithm, decrypting: true)
        }
        if let keyID {
            let named = keys.keys(withID: keyID)
            let matches = named.filter(fits)
            if matches.isEmpty {
                if !named.isEmpty {
                    throw JOSEError(
                        .keyUsageNotPermitted, "the key with kid \"\(keyID.jsonSafePrefix)\" cannot decrypt \(algorithm) + \(encryption)", member: "kid")
                }
                throw JOSEError(.keyNotFound, "no key with kid \"\(keyID.jsonSafePrefix)\" in the set", member: "kid")
            }
            guard matches.count == 1 else {
                throw JOSEError(.ambiguousKey, "\(matches.count) keys in the set share kid \"\(keyID.jsonSafePrefix)\"", member: "kid")
            }
            return matches[0]
        }
        let candidates = keys.keys.filter(fits)
        if candidates.count == 1 { return candidates[0] }
        if candidates.isEmpty { throw JOSEError(.keyNotFound, "the JWE has no kid and no key in the set decrypts \(algorithm) + \(encryption)") }
        throw JOSEError(.ambiguousKey, "the JWE has no kid and \(candidates.count) keys fit \(algorithm) + \(encryption)")
    }
}
