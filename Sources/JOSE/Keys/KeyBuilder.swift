import CLibCrypto

/// Builds `EVP_PKEY`s from raw components with `EVP_PKEY_fromdata`, and reads
/// components back out of an `EVP_PKEY`. All C pointers stay inside these scopes.
enum KeyBuilder {
    /// A component to push into an `OSSL_PARAM_BLD`.
    /// Names are static strings because the builder keeps the name pointers
    /// (and the value buffers) until `OSSL_PARAM_BLD_to_param` copies them.
    enum Param {
        case bigNumber(StaticString, [UInt8])
        case utf8(StaticString, String)
        case octets(StaticString, [UInt8])
    }

    /// A `BIGNUM` holding `bytes` (big-endian). For a private key it is made with
    /// `BN_secure_new` (secure heap when initialised, `BN_FLG_SECURE` always): then
    /// `OSSL_PARAM_BLD_to_param` puts the components in a block that `OSSL_PARAM_free`
    /// cleanses, and `BN_clear_free` (the caller's) cleanses the number itself.
    static func makeNumber(_ bytes: [UInt8], secure: Bool) -> OpaquePointer? {
        guard bytes.count <= Int(Int32.max), let number = secure ? BN_secure_new() : BN_new() else { return nil }
        let converted = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), number) }
        guard converted != nil else {
            BN_clear_free(number)
            return nil
        }
        return number
    }

    /// Builds a key from `params`. With `isPrivate`, every component goes through
    /// secure `BIGNUM`s (``makeNumber(_:secure:)``) and every buffer this function
    /// allocates is cleansed before it is freed.
    static func fromData(type: StaticString, isPrivate: Bool, params: [Param]) throws -> EVPKey {
        guard let builder = OSSL_PARAM_BLD_new() else { throw cryptoFailure("allocate a parameter builder") }
        defer { OSSL_PARAM_BLD_free(builder) }
        var numbers: [OpaquePointer] = []
        defer { for number in numbers { BN_clear_free(number) } }
        var buffers: [UnsafeMutableRawBufferPointer] = []
        defer {
            for buffer in buffers {
                OPENSSL_cleanse(buffer.baseAddress, buffer.count)
                buffer.deallocate()
            }
        }
        func owned(_ bytes: [UInt8]) -> UnsafeMutableRawBufferPointer {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 1)
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.copyBytes(from: bytes)
            buffers.append(buffer)
            return buffer
        }
        for param in params {
            let ok: Int32
            switch param {
            case .bigNumber(let key, let bytes):
                guard let number = makeNumber(bytes, secure: isPrivate) else { throw cryptoFailure("convert a key component") }
                numbers.append(number)
                ok = OSSL_PARAM_BLD_push_BN(builder, key.cString, number)
            case .utf8(let key, let value):
                let buffer = owned(Array(value.utf8))
                ok = OSSL_PARAM_BLD_push_utf8_string(builder, key.cString, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), value.utf8.count)
            case .octets(let key, let bytes):
                let buffer = owned(bytes)
                ok = OSSL_PARAM_BLD_push_octet_string(builder, key.cString, buffer.baseAddress, bytes.count)
            }
            guard ok == 1 else { throw cryptoFailure("build key parameters") }
        }
        guard let built = OSSL_PARAM_BLD_to_param(builder) else { throw cryptoFailure("build key parameters") }
        defer { OSSL_PARAM_free(built) }
        // The context keeps the key type's name pointer (OpenSSL 3.0).
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type.cString, nil) else { throw cryptoFailure("create a \(type) key context") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { throw cryptoFailure("initialise key import") }
        var key: OpaquePointer? = nil
        let selection = isPrivate ? jose_selection_keypair() : jose_selection_public_key()
        guard EVP_PKEY_fromdata(context, &key, selection, built) == 1, let key else {
            ERR_clear_error()
            throw JOSEError(.invalidKey, "libcrypto refused the \(type) key components")
        }
        return EVPKey(taking: key)
    }

    /// Runs libcrypto's consistency checks: the public check (point on curve,
    /// RSA modulus sanity) and, for private keys, the pairwise check.
    static func check(_ key: EVPKey, isPrivate: Bool, what: String) throws {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { throw cryptoFailure("create a key context") }
        defer { EVP_PKEY_CTX_free(context) }
        // RSA public keys skip libcrypto's SP 800-56B public check: it runs a
        // primality test on the modulus (milliseconds per key) that adds nothing to
        // signature verification. The parsers check what matters instead: an odd
        // modulus of sane size, an odd exponent above 1, and no ROCA fingerprint.
        let isRSA = EVP_PKEY_is_a(key.pointer, "RSA") == 1
        // EC: the quick check (not the point at infinity, coordinates in range, on the curve).
        // The full check adds n·Q = O, a scalar multiplication as costly as an ECDH, which
        // proves nothing more on P-256/384/521: their cofactor is 1, every point on the
        // curve but infinity has order n. An ECDH-ES epk is checked on every decryption.
        let isEC = EVP_PKEY_is_a(key.pointer, "EC") == 1
        if !isRSA, (isEC ? EVP_PKEY_public_check_quick(context) : EVP_PKEY_public_check(context)) != 1 {
            ERR_clear_error()
            throw JOSEError(.invalidKey, "\(what): the public key fails validation (for EC: the point is not on the curve)")
        }
        if isPrivate, isRSA {
            // libcrypto's RSA pairwise check runs primality tests on p and q
            // (tens of milliseconds); n = p·q catches mismatched components cheaply.
            guard rsaFactorsMatch(key) else {
                throw JOSEError(.invalidKey, "\(what): the private key does not match its public key")
            }
            return
        }
        if isPrivate, EVP_PKEY_pairwise_check(context) != 1 {
            ERR_clear_error()
            throw JOSEError(.invalidKey, "\(what): the private key does not match its public key")
        }
    }

    /// Whether the RSA key's prime factors multiply to its modulus (true when
    /// the key carries no factors: then there is nothing to compare).
    static func rsaFactorsMatch(_ key: EVPKey) -> Bool {
        var n: OpaquePointer? = nil, p: OpaquePointer? = nil, q: OpaquePointer? = nil
        defer { BN_free(n); BN_clear_free(p); BN_clear_free(q) }
        guard EVP_PKEY_get_bn_param(key.pointer, "n", &n) == 1, let n else { ERR_clear_error(); return false }
        guard EVP_PKEY_get_bn_param(key.pointer, "rsa-factor1", &p) == 1, EVP_PKEY_get_bn_param(key.pointer, "rsa-factor2", &q) == 1,
            let p, let q
        else {
            ERR_clear_error()
            return true
        }
        guard let product = BN_new(), let context = BN_CTX_new() else { return false }
        defer { BN_clear_free(product); BN_CTX_free(context) }
        return BN_mul(product, p, q, context) == 1 && BN_cmp(product, n) == 0
    }

    static func bigNumber(_ key: EVPKey, _ name: String, size: Int? = nil) -> [UInt8]? {
        var number: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(key.pointer, name, &number) == 1, let number else {
            ERR_clear_error()
            return nil
        }
        defer { BN_clear_free(number) }
        let length = size ?? Int((BN_num_bits(number) + 7) / 8)
        var out = [UInt8](repeating: 0, count: max(length, 1))
        let written = out.withUnsafeMutableBufferPointer { BN_bn2binpad(number, $0.baseAddress, Int32($0.count)) }
        return written < 0 ? nil : out
    }

    static func utf8(_ key: EVPKey, _ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        let ok = buffer.withUnsafeMutableBufferPointer { EVP_PKEY_get_utf8_string_param(key.pointer, name, $0.baseAddress, $0.count, &length) }
        guard ok == 1 else { ERR_clear_error(); return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func rawKey(_ key: EVPKey, private isPrivate: Bool) -> [UInt8]? {
        var length = 0
        let probe = isPrivate ? EVP_PKEY_get_raw_private_key(key.pointer, nil, &length) : EVP_PKEY_get_raw_public_key(key.pointer, nil, &length)
        guard probe == 1 else { ERR_clear_error(); return nil }
        var out = [UInt8](repeating: 0, count: length)
        let ok = out.withUnsafeMutableBufferPointer {
            isPrivate
                ? EVP_PKEY_get_raw_private_key(key.pointer, $0.baseAddress, &length)
                : EVP_PKEY_get_raw_public_key(key.pointer, $0.baseAddress, &length)
        }
        return ok == 1 ? out : nil
    }
}

extension KeyBuilder {
    /// An octet-string parameter of a key (for EC, "pub": the encoded public point).
    static func octets(_ key: EVPKey, _ name: String) -> [UInt8]? {
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key.pointer, name, nil, 0, &length) == 1 else { ERR_clear_error(); return nil }
        var out = [UInt8](repeating: 0, count: length)
        let ok = out.withUnsafeMutableBufferPointer { EVP_PKEY_get_octet_string_param(key.pointer, name, $0.baseAddress, $0.count, &length) }
        guard ok == 1 else { ERR_clear_error(); return nil }
        return Array(out.prefix(length))
    }
}
