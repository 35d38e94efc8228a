import JOSE

/// The client's public keys as a JWK Set, for `jwks` in a registration or the document a back end serves
/// at its `jwks_uri`: signing keys with `use: sig`, decryption keys with `use: enc`, each with a `kid`
/// (its own, else its RFC 7638 thumbprint). Only public halves are published; secret (`oct`) keys never are.
///
/// Rotating decryption keys without downtime: publish the new key next to the old one (both in
/// ``/JOSE/JWEDecryptionKeys``, newest first), wait until the provider has fetched the set again, then drop the old key.
public enum ClientJWKSet {
    /// The JWK Set document.
    /// - Parameters:
    ///   - signingKeys: the client's signing keys (`private_key_jwt`, request objects), private or public.
    ///   - decryptionKeys: the client's decryption keys.
    /// - Returns: `{"keys": [...]}`.
    public static func document(signingKeys: [JWK] = [], decryptionKeys: JWEDecryptionKeys) -> JSONObject {
        var keys: [JSONValue] = []
        for (key, use) in signingKeys.map({ ($0, "sig") }) + decryptionKeys.keys.map({ ($0, "enc") }) where key.keyType != .oct {
            var object = key.publicKey.publicJWK
            object["key_ops"] = nil
            object["use"] = .string(use)
            object["kid"] = .string(key.keyID ?? key.thumbprint())
            keys.append(.object(object))
        }
        return ["keys": .array(keys)]
    }
}
