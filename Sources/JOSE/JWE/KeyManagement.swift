import CLibCrypto

/// RSAES-OAEP (RFC 8017) for `RSA-OAEP` (SHA-1) and `RSA-OAEP-256` (SHA-256),
/// through `EVP_PKEY_encrypt`/`EVP_PKEY_decrypt`.
enum RSAOAEP {
    /// Encrypts `cek` to the RSA public key.
    static func encrypt(_ cek: [UInt8], key: EVPKey, sha256: Bool) throws -> [UInt8] {
        try withContext(key: key, sha256: sha256, decrypting: false) { context in
            var length = 0
            guard EVP_PKEY_encrypt(context, nil, &length, cek, cek.count) == 1 else { throw cryptoFailure("size an RSA-OAEP encryption") }
            var output = [UInt8](repeating: 0, count: length)
            let ok = output.withUnsafeMutableBufferPointer { EVP_PKEY_encrypt(context, $0.baseAddress, &length, cek, cek.count) }
            guard ok == 1 else { throw cryptoFailure("encrypt with RSA-OAEP") }
            output.removeLast(output.count - length)
            return output
        }
    }

    /// Decrypts; `nil` on any failure (the caller substitutes a random CEK, RFC 7516 §11.5).
    static func decrypt(_ encrypted: [UInt8], key: EVPKey, sha256: Bool) -> [UInt8]? {
        guard encrypted.count == (key.bits + 7) / 8 else { return nil }
        return try? withContext(key: key, sha256: sha256, decrypting: true) { context in
            var length = 0
            guard EVP_PKEY_decrypt(context, nil, &length, encrypted, encrypted.count) == 1 else { throw cryptoFailure("size an RSA-OAEP decryption") }
            var output = [UInt8](repeating: 0, count: length)
            let ok = output.withUnsafeMutableBufferPointer { EVP_PKEY_decrypt(context, $0.baseAddress, &length, encrypted, encrypted.count) }
            guard ok == 1 else { throw cryptoFailure("decrypt with RSA-OAEP") }
            output.removeLast(output.count - length)
            return output
        }
    }

    private static func withContext<R>(key: EVPKey, sha256: Bool, decrypting: Bool, _ body: (OpaquePointer) throws -> R) throws -> R {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { throw cryptoFailure("create an RSA context") }
        defer { EVP_PKEY_CTX_free(context) }
        let md = sha256 ? DigestAlgorithm.sha256.md : SHA1Digest.shared.md
        guard let md else { throw cryptoFailure("fetch SHA-1") }
        var ok = (decrypting ? EVP_PKEY_decrypt_init(context) : EVP_PKEY_encrypt_init(context)) == 1
        ok = ok && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1
        ok = ok && EVP_PKEY_CTX_set_rsa_oaep_md(context, md) == 1
        ok = ok && EVP_PKEY_CTX_set_rsa_mgf1_md(context, md) == 1
        guard ok else { throw cryptoFailure("prepare RSA-OAEP") }
        return try body(context)
    }
}

/// SHA-1, fetched once, for `RSA-OAEP` only.
final class SHA1Digest: @unchecked Sendable {
    static let shared = SHA1Digest()
    let md: OpaquePointer?
    private init() { md = EVP_MD_fetch(nil, "SHA1", nil) }
}

/// ECDH-ES (RFC 7518 §4.6): the shared secret Z and the Concat KDF.
enum ECDHES {
    /// Z = the x-coordinate of `privateKey` · `peer` (`EVP_PKEY_derive`; `peer` must come from a
    /// ``JWK``, whose builder checked it is on the curve),
    /// or the X25519 output. An all-zero X25519 output (a peer key of low order, RFC 7748 §6.1) is refused;
    /// on the NIST curves a zero x-coordinate is a legitimate point (the peer key was checked to be on the curve).
    static func sharedSecret(privateKey: EVPKey, peer: EVPKey) throws -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, privateKey.pointer, nil) else { throw cryptoFailure("create an ECDH context") }
        defer { EVP_PKEY_CTX_free(context) }
        var length = 0
        // The peer was validated when it was built (KeyBuilder.check: on the curve); validating
        // it again here (EVP_PKEY_derive_set_peer) would repeat a full public check per token.
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer_ex(context, peer.pointer, 0) == 1,
            EVP_PKEY_derive(context, nil, &length) == 1
        else {
            ERR_clear_error()
            throw cryptoFailure("prepare ECDH")
        }
        var secret = [UInt8](repeating: 0, count: length)
        let ok = secret.withUnsafeMutableBufferPointer { EVP_PKEY_derive(context, $0.baseAddress, &length) }
        guard ok == 1 else {
            ERR_clear_error()
            throw cryptoFailure("derive the ECDH shared secret")
        }
        secret.removeLast(secret.count - length)
        guard EVP_PKEY_is_a(privateKey.pointer, "X25519") == 1 else { return secret }
        // Constant time: no early exit on the first non-zero byte.
        var accumulated: UInt8 = 0
        for byte in secret { accumulated |= byte }
        guard accumulated != 0, !secret.isEmpty else {
            secret.wipe()
            throw JOSEError(.invalidKey, "the ECDH shared secret is all zeros (a low-order public key)")
        }
        return secret
    }

    /// The Concat KDF of NIST SP 800-56A with SHA-256, as RFC 7518 §4.6.2 fixes
    /// its OtherInfo: AlgorithmID, PartyUInfo, PartyVInfo (each length-prefixed)
    /// and SuppPubInfo (the key length in bits).
    static func concatKDF(z: [UInt8], keyLength: Int, algorithmID: String, apu: [UInt8], apv: [UInt8]) -> [UInt8] {
        func prefixed(_ bytes: [UInt8]) -> [UInt8] { bigEndian32(bytes.count) + bytes }
        let otherInfo = prefixed(Array(algorithmID.utf8)) + prefixed(apu) + prefixed(apv) + bigEndian32(keyLength * 8)
        var output: [UInt8] = []
        var counter = 1
        while output.count < keyLength {
            output += DigestAlgorithm.sha256.hash(bigEndian32(counter) + z + otherInfo)
            counter += 1
        }
        return Array(output[0..<keyLength])
    }

    private static func bigEndian32(_ value: Int) -> [UInt8] {
        let v = UInt32(truncatingIfNeeded: value)
        return [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }
}
