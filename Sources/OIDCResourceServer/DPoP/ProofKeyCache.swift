import JOSE

/// The public keys of recently seen DPoP proof headers, by the exact protected-header text
/// (Base64URL): the same text always parses to the same key, so a hit skips only work whose
/// result is already known. Only keys that passed ``DPoPProofValidator``'s `jwk` checks enter.
/// Bounded: when full, it starts over (a miss costs one key import, never a wrong answer).
final class ProofKeyCache: Sendable {
    /// The most headers remembered.
    static let capacity = 1024
    private let entries = Locked([String: (JWK, String)]())

    /// The key and thumbprint read from `header` before, if any.
    func key(for header: String) -> (JWK, String)? {
        entries.withLock { $0[header] }
    }

    /// Remembers the key and thumbprint read from `header`.
    func remember(_ key: (JWK, String), for header: String) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[header] = key
        }
    }
}
