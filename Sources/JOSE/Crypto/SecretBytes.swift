import CLibCrypto

/// Secret key bytes (HMAC), wiped on release, never printed.
/// Holds pooled, keyed `EVP_MAC_CTX`s so a verification only re-initialises one.
///
/// The bytes live in a buffer this object allocates and owns (never an array's
/// storage shared, copy-on-write, with the caller): `deinit` cleanses exactly that
/// buffer, and nothing else ever holds it.
final class SecretBytes: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Owned; `count` bytes, at least one byte allocated so the address is never null.
    private let storage: UnsafeMutableRawBufferPointer
    /// The number of secret bytes.
    let count: Int
    /// Keyed HMAC contexts, by digest.
    let pool = ContextPool()

    /// Copies `bytes` into a buffer of its own; the caller's array is neither kept nor changed.
    init(_ bytes: [UInt8]) {
        count = bytes.count
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress, let target = storage.baseAddress { target.copyMemory(from: base, byteCount: source.count) }
        }
    }

    deinit {
        OPENSSL_cleanse(storage.baseAddress, storage.count)
        storage.deallocate()
    }

    var description: String { "SecretBytes(\(count) bytes, redacted)" }
    var debugDescription: String { description }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage.baseAddress, count: count))
    }

    /// The secret as an array (for export by explicit request only).
    var exposedCopy: [UInt8] { withBytes { Array($0) } }

    /// A keyed HMAC context for `digest`, from the pool or new.
    func withMAC<R>(_ digest: DigestAlgorithm, _ body: (OpaquePointer) throws -> R) throws -> R {
        try pool.withContext(slot: digest.slot, make: { try makeMAC(digest) }) { try body($0.pointer) }
    }

    private func makeMAC(_ digest: DigestAlgorithm) throws -> PooledContext {
        guard let mac = HMACAlgorithm.shared.mac, let context = EVP_MAC_CTX_new(mac) else {
            throw cryptoFailure("create an HMAC context")
        }
        // The OSSL_PARAM keeps its key pointer: the imported OSSL_MAC_PARAM_DIGEST is a
        // temporary String (a use after free the address sanitizer found), so a static one.
        let ok = digest.rawValue.withCString { name -> Int32 in
            var params = [
                OSSL_PARAM_construct_utf8_string(("digest" as StaticString).cString, UnsafeMutablePointer(mutating: name), 0),
                OSSL_PARAM_construct_end(),
            ]
            return withBytes { key in
                EVP_MAC_init(context, key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count, &params)
            }
        }
        guard ok == 1 else {
            EVP_MAC_CTX_free(context)
            throw cryptoFailure("key an HMAC context")
        }
        return PooledContext(kind: .mac, pointer: context)
    }
}

/// The fetched HMAC implementation.
final class HMACAlgorithm: @unchecked Sendable {
    static let shared = HMACAlgorithm()
    let mac: OpaquePointer?
    private init() { mac = EVP_MAC_fetch(nil, "HMAC", nil) }
}
