import CLibCrypto

/// One `EVP_MD_CTX` per SHA-2 digest for each thread, made on first use and freed when the thread ends.
///
/// `EVP_Digest` makes a context, takes a reference to the digest (one reference count that every thread
/// hashing with it writes) and frees both on every call; a context kept per thread is initialised again with the
/// digest it already holds, which takes no new reference and allocates no context. Hashing many small inputs from
/// several threads (cache keys, disclosure digests, thumbprints) then writes only the thread's own memory.
final class ThreadDigestContexts {
    private var contexts: [OpaquePointer?] = [nil, nil, nil]

    deinit { for context in contexts { EVP_MD_CTX_free(context) } }

    private static let holders = PerThread { ThreadDigestContexts() }

    /// This thread's context for `algorithm`; `nil` when libcrypto or the system cannot give one (the caller then
    /// hashes with `EVP_Digest`).
    static func context(for algorithm: DigestAlgorithm) -> OpaquePointer? {
        guard let holder = holders.current else { return nil }
        if let context = holder.contexts[algorithm.slot] { return context }
        let context = EVP_MD_CTX_new()
        holder.contexts[algorithm.slot] = context
        return context
    }
}
