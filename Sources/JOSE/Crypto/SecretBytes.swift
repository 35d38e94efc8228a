import CLibCrypto

/// Secret key bytes (HMAC), wiped on release, never printed.
/// Holds pooled, keyed `EVP_MAC_CTX`s so a verification only re-initialises one.
final class SecretBytes: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    private var storage: [UInt8]
    /// Keyed HMAC contexts, by digest.
    let pool = ContextPool()

    init(_ bytes: [UInt8]) { storage = bytes }

    deinit {
        storage.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }

    var count: Int { storage.count }
    var description: String { "SecretBytes(\(storage.count) bytes, redacted)" }
    var debugDescription: String { description }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes(body)
    }

    /// The secret as an array (for export by explicit request only).
    var exposedCopy: [UInt8] { storage }

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
            return storage.withUnsafeBytes { key in
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
