import CLibCrypto

/// Owns one `EVP_PKEY` and a small pool of verification contexts prepared
/// for it, so the hot path does no per-token context setup.
///
/// An `EVP_PKEY` is not modified after construction, and libcrypto allows
/// concurrent use of one key from several threads as long as each uses its own
/// `EVP_PKEY_CTX`; the pool hands each caller a context of its own.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer
    private let idle = Locked<[[PooledContext]]>(Array(repeating: [], count: JWSAlgorithm.allCases.count))
    private static let poolCap = 16

    /// Takes ownership of `pointer`.
    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit {
        idle.withLock { pools in
            for contexts in pools { for context in contexts { context.free() } }
        }
        EVP_PKEY_free(pointer)
    }

    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// Runs `body` with a context made by `make` (or reused from the pool for `slot`).
    /// A context whose operation failed at the libcrypto level is not returned to the pool.
    func withContext<R>(slot: Int, make: () throws -> PooledContext, _ body: (PooledContext) throws -> R) throws -> R {
        let reused = idle.withLock { pools -> PooledContext? in pools[slot].popLast() }
        let context = try reused ?? make()
        let result: R
        do {
            result = try body(context)
        } catch {
            context.free()
            throw error
        }
        let kept = idle.withLock { pools -> Bool in
            if pools[slot].count >= Self.poolCap { return false }
            pools[slot].append(context)
            return true
        }
        if !kept { context.free() }
        return result
    }
}

/// A libcrypto context that may be pooled: a `EVP_PKEY_CTX` (with the
/// `EVP_MD_CTX` that hashes for it), an `EVP_MD_CTX` or an `EVP_MAC_CTX`.
struct PooledContext: @unchecked Sendable {
    enum Kind { case pkey, md, mac }
    let kind: Kind
    let pointer: OpaquePointer
    /// For `.pkey`: a digest context reused for every message it verifies.
    var digest: OpaquePointer? = nil

    func free() {
        switch kind {
        case .pkey:
            EVP_PKEY_CTX_free(pointer)
            EVP_MD_CTX_free(digest)
        case .md: EVP_MD_CTX_free(pointer)
        case .mac: EVP_MAC_CTX_free(pointer)
        }
    }
}

/// Clears libcrypto's thread-local error queue and returns a generic failure.
func cryptoFailure(_ what: String) -> JOSEError {
    ERR_clear_error()
    return JOSEError(.cryptoFailure, "libcrypto failed to \(what)")
}
