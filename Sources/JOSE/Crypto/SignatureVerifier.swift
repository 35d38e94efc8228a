import CLibCrypto

/// The cryptographic check of one signature, once the policy layer has
/// decided that `key` may be used with `algorithm`.
enum SignatureVerifier {
    /// Whether `signature` is valid for `input` under `key` and `algorithm`.
    static func isValid(signature: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer, key: JWK, algorithm: JWSAlgorithm) throws -> Bool {
        if algorithm.family == .mlDSA { try MLDSA.requireAvailable("verifying an \(algorithm) signature") }
        switch (algorithm.family, key.storage) {
        case (.hmac, .symmetric(let secret)):
            guard let digest = algorithm.digest, signature.count == digest.outputLength else { return false }
            return try HMAC.matches(signature, secret: secret, digest: digest, input: input)
        case (.rsaPKCS1, .asymmetric(let evp)), (.rsaPSS, .asymmetric(let evp)):
            guard signature.count == (evp.bits + 7) / 8, let digest = algorithm.digest else { return false }
            return try verifyDigest(evp, algorithm: algorithm, digest: digest, signature: signature, input: input)
        case (.ecdsa, .asymmetric(let evp)):
            guard case .ec(let curve) = key.keyType, let digest = algorithm.digest else { return false }
            return try ECDSASignature.withDER(fromJWS: signature, curve: curve) { der in
                guard let der else { return false }
                return try verifyDigest(evp, algorithm: algorithm, digest: digest, signature: der, input: input)
            }
        case (.eddsa, .asymmetric(let evp)), (.mlDSA, .asymmetric(let evp)):
            if case .mlDSA(let set) = key.keyType {
                guard signature.count == set.signatureLength else { return false }
            } else {
                guard signature.count == 64 else { return false }
            }
            return try evp.pool.withContext(slot: algorithm.slot, make: { try makeEdDSAContext(evp) }) { context in
                // A one-shot EdDSA verification leaves the context reusable only after re-initialisation.
                guard EVP_DigestVerifyInit_ex(context.pointer, nil, nil, nil, nil, evp.pointer, nil) == 1 else {
                    throw cryptoFailure("initialise \(algorithm) verification")
                }
                let result = EVP_DigestVerify(context.pointer, signature.baseAddress, signature.count, input.baseAddress, input.count)
                if result != 1 { ERR_clear_error() }
                return result == 1
            }
        default:
            return false
        }
    }

    /// Hash with a fetched digest, then `EVP_PKEY_verify` on a pooled context
    /// prepared once with padding and digest.
    private static func verifyDigest(
        _ evp: EVPKey, algorithm: JWSAlgorithm, digest: DigestAlgorithm,
        signature: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer
    ) throws -> Bool {
        // The hash lives on the stack, and the pooled context's own digest
        // context is re-initialised rather than allocated for every message.
        try evp.pool.withContext(slot: algorithm.slot, make: { try makeVerifyContext(evp, algorithm: algorithm, digest: digest) }) { context in
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { hash in
                var length: UInt32 = 0
                guard EVP_DigestInit_ex2(context.digest, digest.md, nil) == 1,
                    EVP_DigestUpdate(context.digest, input.baseAddress, input.count) == 1,
                    EVP_DigestFinal_ex(context.digest, hash.baseAddress, &length) == 1
                else {
                    throw cryptoFailure("hash the signing input")
                }
                let result = EVP_PKEY_verify(
                    context.pointer, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
                    hash.baseAddress, Int(length))
                if result != 1 { ERR_clear_error() }
                return result == 1
            }
        }
    }

    static func makeVerifyContext(_ evp: EVPKey, algorithm: JWSAlgorithm, digest: DigestAlgorithm) throws -> PooledContext {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, evp.pointer, nil) else { throw cryptoFailure("create a verification context") }
        guard let digestContext = EVP_MD_CTX_new() else {
            EVP_PKEY_CTX_free(context)
            throw cryptoFailure("create a digest context")
        }
        var ok = EVP_PKEY_verify_init(context) == 1
        ok = ok && configure(context, algorithm: algorithm, digest: digest)
        guard ok else {
            EVP_PKEY_CTX_free(context)
            EVP_MD_CTX_free(digestContext)
            throw cryptoFailure("prepare \(algorithm) verification")
        }
        return PooledContext(kind: .pkey, pointer: context, digest: digestContext)
    }

    /// Padding, digest, MGF1 digest and salt length as RFC 7518 fixes them.
    static func configure(_ context: OpaquePointer, algorithm: JWSAlgorithm, digest: DigestAlgorithm) -> Bool {
        var ok = EVP_PKEY_CTX_set_signature_md(context, digest.md) == 1
        switch algorithm.family {
        case .rsaPKCS1:
            ok = ok && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
        case .rsaPSS:
            ok = ok && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) == 1
            ok = ok && EVP_PKEY_CTX_set_rsa_mgf1_md(context, digest.md) == 1
            ok = ok && EVP_PKEY_CTX_set_rsa_pss_saltlen(context, Int32(digest.outputLength)) == 1
        default:
            break
        }
        return ok
    }

    private static func makeEdDSAContext(_ evp: EVPKey) throws -> PooledContext {
        guard let context = EVP_MD_CTX_new() else { throw cryptoFailure("create an Ed25519 context") }
        return PooledContext(kind: .md, pointer: context)
    }
}

/// HMAC over pooled keyed contexts.
enum HMAC {
    /// The HMAC of `input` (for signing).
    static func compute(secret: SecretBytes, digest: DigestAlgorithm, input: UnsafeRawBufferPointer) throws -> [UInt8] {
        try withTag(secret: secret, digest: digest, input: input) { Array($0) }
    }

    /// Whether `tag` is the HMAC of `input`, compared in constant time; the
    /// computed tag stays on the stack.
    static func matches(_ tag: UnsafeRawBufferPointer, secret: SecretBytes, digest: DigestAlgorithm, input: UnsafeRawBufferPointer) throws -> Bool {
        try withTag(secret: secret, digest: digest, input: input) { computed in
            tag.count == computed.count && CRYPTO_memcmp(computed.baseAddress, tag.baseAddress, computed.count) == 0
        }
    }

    /// Computes the tag into a stack buffer on a pooled keyed context, hands it
    /// to `body`, then wipes it.
    private static func withTag<R>(
        secret: SecretBytes, digest: DigestAlgorithm, input: UnsafeRawBufferPointer,
        _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) throws -> R {
        try secret.withMAC(digest) { context in
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
                defer { OPENSSL_cleanse(buffer.baseAddress, buffer.count) }
                var length = 0
                let ok =
                    EVP_MAC_init(context, nil, 0, nil) == 1
                    && EVP_MAC_update(context, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count) == 1
                    && EVP_MAC_final(context, buffer.baseAddress, &length, buffer.count) == 1
                guard ok, length == digest.outputLength else { throw cryptoFailure("compute an HMAC") }
                return body(UnsafeBufferPointer(rebasing: buffer[0..<length]))
            }
        }
    }
}
