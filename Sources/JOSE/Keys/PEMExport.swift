import CLibCrypto

extension JWK {
    /// The public key as PEM SubjectPublicKeyInfo (`-----BEGIN PUBLIC KEY-----`),
    /// written by libcrypto: for RSA, EC, Ed25519 and X25519 keys the bytes
    /// `openssl pkey -pubout` writes, and ``init(pem:)`` reads them back.
    /// - Throws: ``JOSEError`` `.unsupportedKey` for an `oct` key (a secret has
    ///   no public key), `.cryptoFailure` when libcrypto fails.
    public func publicKeyPEM() throws -> String {
        if case .unavailable = storage { try MLDSA.requireAvailable("the PEM form of an \(keyType) key") }
        guard case .asymmetric(let key) = storage else { throw JOSEError(.unsupportedKey, "an oct key has no PEM form") }
        return try PEMWriter.write(secure: false) { PEM_write_bio_PUBKEY($0, key.pointer) }
    }

    /// The private key as unencrypted PEM PKCS#8 (`-----BEGIN PRIVATE KEY-----`),
    /// for a key file, as `openssl pkey` writes it (an Ed25519 or X25519 key as
    /// RFC 8410 version 0, without its public key); the text is built in libcrypto's secure heap.
    /// - Throws: ``JOSEError`` `.invalidKey` for a public key, `.unsupportedKey`
    ///   for an `oct` key, `.cryptoFailure` when libcrypto fails.
    public func privateKeyPEM() throws -> String {
        guard isPrivate else { throw JOSEError(.invalidKey, "a public key has no private PEM") }
        if case .unavailable = storage { try MLDSA.requireAvailable("the PEM form of an \(keyType) key") }
        guard case .asymmetric(let key) = storage else { throw JOSEError(.unsupportedKey, "an oct key has no PEM form") }
        return try PEMWriter.write(secure: true) { PEM_write_bio_PrivateKey($0, key.pointer, nil, nil, 0, nil, nil) }
    }
}

/// Runs a libcrypto PEM writer into a memory BIO and returns the text.
enum PEMWriter {
    static func write(secure: Bool, _ body: (OpaquePointer) -> Int32) throws -> String {
        guard let method = secure ? BIO_s_secmem() : BIO_s_mem(), let bio = BIO_new(method) else { throw cryptoFailure("allocate a memory BIO") }
        defer { BIO_free(bio) }
        guard body(bio) == 1 else { throw cryptoFailure("write the PEM") }
        let pending = Int(BIO_ctrl_pending(bio))
        guard pending > 0, pending < Int(Int32.max) else { throw cryptoFailure("write the PEM") }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
        defer { bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        guard read == Int32(pending) else { throw cryptoFailure("read the PEM back") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
