import JOSE

/// `at_hash` / `c_hash` (OpenID Connect Core §3.1.3.6, §3.3.2.11): the Base64URL of
/// the left half of the hash of the ASCII value, the hash being the one of the
/// ID Token's `alg` — SHA-512 for EdDSA/Ed25519 (OpenID Connect Core errata set 2).
package enum TokenHash {
    /// The hash function for `algorithm`.
    package static func digest(for algorithm: JWSAlgorithm) -> DigestAlgorithm {
        algorithm.digest ?? .sha512
    }

    /// The `at_hash`/`c_hash` value of `value` for an ID Token signed with `algorithm`.
    package static func compute(_ value: String, algorithm: JWSAlgorithm) -> String {
        let hash = digest(for: algorithm).hash(Array(value.utf8))
        return Base64URL.encode(hash.prefix(hash.count / 2))
    }

    /// Whether `claimed` is the hash of `value`, compared in constant time.
    package static func matches(_ claimed: String, value: String, algorithm: JWSAlgorithm) -> Bool {
        ConstantTime.equals(claimed, compute(value, algorithm: algorithm))
    }
}
