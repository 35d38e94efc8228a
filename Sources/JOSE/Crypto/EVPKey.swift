import CLibCrypto

/// Owns one `EVP_PKEY` and a small pool of verification contexts prepared
/// for it, so the hot path does no per-token context setup.
///
/// An `EVP_PKEY` is not modified after construction, and libcrypto allows
/// concurrent use of one key from several threads as long as each uses its own
/// `EVP_PKEY_CTX`; the pool hands each caller a context of its own.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Verification contexts prepared for this key, by algorithm slot.
    let pool = ContextPool()

    /// The key's size in bits, read once (every RSA verification compares the signature's length with it).
    let bits: Int

    /// Takes ownership of `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
        bits = Int(EVP_PKEY_get_bits(pointer))
    }

    deinit { EVP_PKEY_free(pointer) }
}

/// Clears libcrypto's thread-local error queue and returns a generic failure.
func cryptoFailure(_ what: String) -> JOSEError {
    ERR_clear_error()
    return JOSEError(.cryptoFailure, "libcrypto failed to \(what)")
}
