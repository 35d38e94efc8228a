import CLibCrypto

/// Produces JWS signatures with a private or secret key.
enum Signer {
    static func sign(input: [UInt8], key: JWK, algorithm: JWSAlgorithm) throws -> [UInt8] {
        if algorithm.family == .mlDSA { try MLDSA.requireAvailable("signing with \(algorithm)") }
        switch (algorithm.family, key.storage) {
        case (.hmac, .symmetric(let secret)):
            guard let digest = algorithm.digest else { throw cryptoFailure("select a digest") }
            return try input.withUnsafeBytes { try HMAC.compute(secret: secret, digest: digest, input: $0) }
        case (_, .asymmetric(let evp)):
            let der = try digestSign(evp, algorithm: algorithm, input: input)
            if algorithm.family == .ecdsa, case .ec(let curve) = key.keyType {
                return try ECDSASignature.jws(fromDER: der, curve: curve)
            }
            return der
        default:
            throw JOSEError(.keyAlgorithmMismatch, "an \(key.keyType) key cannot sign with \(algorithm)")
        }
    }

    private static func digestSign(_ evp: EVPKey, algorithm: JWSAlgorithm, input: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw cryptoFailure("create a signing context") }
        defer { EVP_MD_CTX_free(context) }
        var pkeyContext: OpaquePointer? = nil
        let mdName = algorithm.digest?.rawValue
        let initialised = withOptionalCString(mdName) { name in
            EVP_DigestSignInit_ex(context, &pkeyContext, name, nil, nil, evp.pointer, nil) == 1
        }
        guard initialised, let pkeyContext else { throw cryptoFailure("initialise \(algorithm) signing") }
        if let digest = algorithm.digest, algorithm.family == .rsaPKCS1 || algorithm.family == .rsaPSS {
            guard SignatureVerifier.configure(pkeyContext, algorithm: algorithm, digest: digest) else {
                throw cryptoFailure("configure \(algorithm) signing")
            }
        }
        var length = 0
        guard input.withUnsafeBufferPointer({ EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }) == 1 else {
            throw cryptoFailure("size a \(algorithm) signature")
        }
        var signature = [UInt8](repeating: 0, count: length)
        let ok = signature.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { EVP_DigestSign(context, out.baseAddress, &length, $0.baseAddress, $0.count) }
        }
        guard ok == 1 else { throw cryptoFailure("produce a \(algorithm) signature") }
        return Array(signature.prefix(length))
    }

    private static func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let string else { return body(nil) }
        return string.withCString { body($0) }
    }
}
