import JOSE

/// Verification with keys the caller gave (no cache, no network), shared by ``IDTokenValidator``
/// and ``ForeignTokenVerifier``.
enum GivenKeyVerification {
    /// Verifies `jws` with `keys` (symmetric keys left out: a provider's keys are asymmetric).
    ///
    /// A single key without `kid` (a pinned key, e.g. read from a PEM) is the key, whatever `kid` the
    /// token's header names: there is nothing to match it against. Otherwise the key is chosen by `kid`
    /// (or the single key fitting the algorithm when the token has none), and a `kid` no key has is named
    /// in the error.
    /// - Throws: ``OIDCError`` signature and key codes.
    static func verify(_ jws: CompactJWS, with keys: JWKSet, policy: JWSVerificationPolicy) throws {
        let usable = keys.keys.filter { $0.keyType != .oct }
        do {
            if usable.count == 1, usable[0].keyID == nil {
                try jws.verify(with: usable[0], policy: policy)
            } else {
                try jws.verify(with: JWKSet(keys: usable), policy: policy)
            }
        } catch let error as JOSEError {
            throw VerificationErrors.map(error, header: jws.header)
        }
    }
}
