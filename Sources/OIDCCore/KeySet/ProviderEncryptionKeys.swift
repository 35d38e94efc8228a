import JOSE

extension JWKSet {
    /// The keys of a provider's JWK Set that a client may encrypt to (a request object, OpenID Connect Core §6.1,
    /// RFC 9101 §6.1), in the document's order: public keys that are not `oct`, and
    /// - when any key of the set states its `use`: only the keys with `use: enc` — a `use: sig` key never, and
    ///   a key without `use` beside keys that state one is not taken for an encryption key either;
    /// - when no key states a `use`: every such key; the caller then keeps those whose type and `alg` admit the
    ///   encryption algorithm (``JWK/admits(_:encryption:)``) and whose `key_ops` permit it (``JWK/permitsJWE(_:decrypting:)``).
    ///
    /// The one rule for the provider's encryption keys: `encryptionKeys()` serves these, and
    /// ``RequestObject/encrypt(_:to:algorithm:encryption:)`` applies it to any set it is given.
    package var providerEncryptionKeys: [JWK] {
        let candidates = keys.filter { $0.keyType != .oct && !$0.isPrivate }
        guard keys.contains(where: { $0.use != nil }) else { return candidates }
        return candidates.filter { $0.use == "enc" }
    }
}
