import CLibCrypto

/// libcrypto's own DER key decoders (`d2i_PUBKEY`, `d2i_AutoPrivateKey`,
/// `d2i_X509`). They build OpenSSL 3's whole decoder chain on each call, so
/// `JWK(pem:)` uses them only to compute the public point of an EC private key
/// stored without one; tests and the fuzzer use them as the reference the
/// in-house reader is compared with.
enum OpenSSLKeyDecoder {
    /// The key libcrypto decodes from `der`, or `nil` when it refuses it.
    static func decode(_ der: [UInt8], format: PEMKeyFormat) -> EVPKey? {
        let pointer: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            switch format {
            case .publicKey:
                return d2i_PUBKEY(nil, &cursor, buffer.count)
            case .privateKey, .rsaPrivateKey, .ecPrivateKey:
                return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
            case .certificate:
                guard let certificate = d2i_X509(nil, &cursor, buffer.count) else { return nil }
                defer { X509_free(certificate) }
                return X509_get_pubkey(certificate)
            }
        }
        ERR_clear_error()
        return pointer.map { EVPKey(taking: $0) }
    }

    /// The encoded public point libcrypto computes for an EC private key on `curve`.
    static func publicPoint(_ der: [UInt8], format: PEMKeyFormat, curve: JWK.Curve) throws -> [UInt8] {
        guard let key = decode(der, format: format), EVP_PKEY_is_a(key.pointer, "EC") == 1,
            KeyBuilder.utf8(key, "group") == curve.openSSLName, let point = KeyBuilder.octets(key, "pub")
        else {
            throw JOSEError(.invalidKey, "libcrypto could not compute the public key of the EC private key")
        }
        return point
    }

    /// The public JWK members (`kty` included) of a libcrypto key, read back the
    /// way a JWK holds them; `nil` for other key types or unreadable keys.
    static func publicJWK(_ key: EVPKey) -> JSONObject? {
        if EVP_PKEY_is_a(key.pointer, "RSA") == 1 {
            guard let n = KeyBuilder.bigNumber(key, "n"), let e = KeyBuilder.bigNumber(key, "e") else { return nil }
            return JSONObject([("kty", "RSA"), ("n", .string(Base64URL.encode(n))), ("e", .string(Base64URL.encode(e)))])
        }
        if EVP_PKEY_is_a(key.pointer, "EC") == 1 {
            let group = KeyBuilder.utf8(key, "group")
            guard let curve = JWK.Curve.allCases.first(where: { $0.openSSLName == group }),
                let x = KeyBuilder.bigNumber(key, "qx", size: curve.coordinateSize),
                let y = KeyBuilder.bigNumber(key, "qy", size: curve.coordinateSize)
            else { return nil }
            return JSONObject([("kty", "EC"), ("crv", .string(curve.rawValue)), ("x", .string(Base64URL.encode(x))), ("y", .string(Base64URL.encode(y)))])
        }
        for curve in [OctetKeyPairCurve.ed25519, .x25519] where EVP_PKEY_is_a(key.pointer, curve.openSSLName) == 1 {
            guard let x = KeyBuilder.rawKey(key, private: false) else { return nil }
            return JSONObject([("kty", "OKP"), ("crv", .string(curve.rawValue)), ("x", .string(Base64URL.encode(x)))])
        }
        return nil
    }

    /// PKCS#8 DER cut down to version, algorithm and privateKey: without the
    /// attributes [0] (whose values the DER reader checks for framing only, and
    /// does not use) and the OneAsymmetricKey publicKey [1] (which OpenSSL 3.0
    /// cannot read; the DER reader checks it against the private key).
    /// Anything that is not a SEQUENCE is returned unchanged.
    static func withoutOptionalFields(_ der: [UInt8]) -> [UInt8] {
        var outer = DERReader(der[...])
        guard let body = try? outer.read(DER.sequence, "PKCS#8"), outer.isAtEnd else { return der }
        var reader = DERReader(body)
        for _ in 0..<3 { guard (try? reader.read("a PKCS#8 field")) != nil else { return der } }
        let kept = Array(der[body.startIndex..<reader.remaining.startIndex])
        var length = kept.count
        var lengthBytes: [UInt8] = []
        while length > 0 {
            lengthBytes.insert(UInt8(length & 0xFF), at: 0)
            length >>= 8
        }
        let header: [UInt8] = kept.count < 0x80 ? [DER.sequence, UInt8(kept.count)] : [DER.sequence, 0x80 | UInt8(lengthBytes.count)] + lengthBytes
        return header + kept
    }
}

extension JWK {
    /// A test and fuzzing aid, not for applications: the public members (`kty`,
    /// then `n`/`e`, `crv`/`x`/`y` or `crv`/`x`) that libcrypto's own DER decoders
    /// (`d2i_PUBKEY`, `d2i_AutoPrivateKey`, `d2i_X509`) read from the first PEM
    /// block, or `nil` when they refuse it. A PKCS#8 key is given to them without
    /// its optional attributes [0] and publicKey [1] (which OpenSSL 3.0 cannot read). The Base64 body is decoded as
    /// `JWK(pem:)` decodes it; no key checks are made. Compare with ``publicJWK``.
    @_spi(Testing) public static func openSSLPublicJWK(pem: String) -> JSONObject? {
        guard let label = PEMBlock.firstLabel(in: pem), let format = PEMKeyFormat(label: label),
            var der = try? PEMBlock.der(of: pem, label: label)
        else { return nil }
        if format == .privateKey { der = OpenSSLKeyDecoder.withoutOptionalFields(der) }
        return OpenSSLKeyDecoder.decode(der, format: format).flatMap(OpenSSLKeyDecoder.publicJWK)
    }
}
