import CLibCrypto

/// The content encryption of RFC 7518 §5 on libcrypto's EVP cipher API.
///
/// Decryption failures of any kind (tag, padding, lengths) are the one
/// ``JOSEError/Code-swift.enum/decryptionFailed`` error, with one reason, so that
/// nothing distinguishes them. For CBC-HS the tag is checked, in constant time,
/// before any decryption or padding check.
enum ContentCipher {
    /// The single error every content decryption failure becomes.
    static var failure: JOSEError { JOSEError(.decryptionFailed, "the JWE could not be decrypted") }

    /// The largest input libcrypto's `int` lengths take, with room for a padding block.
    static let maxInput = Int(Int32.max) - 64

    /// Encrypts `plaintext`; returns ciphertext and tag.
    static func encrypt(
        _ plaintext: [UInt8], key: [UInt8], iv: [UInt8], aad: [UInt8],
        encryption: JWEContentEncryption
    ) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        guard key.count == encryption.keyLength, iv.count == encryption.ivLength else {
            throw cryptoFailure("encrypt: wrong key or IV length")
        }
        guard plaintext.count <= maxInput, aad.count <= maxInput else {
            throw JOSEError(.limitExceeded, "plaintext or header too large to encrypt")
        }
        if encryption.isGCM {
            return try gcm(encrypt: true, input: plaintext, key: key, iv: iv, aad: aad, tag: nil, encryption: encryption)
        }
        let half = encryption.keyLength / 2
        var macKey = Array(key[0..<half]), encKey = Array(key[half...])
        defer { macKey.wipe(); encKey.wipe() }
        let ciphertext = try cbc(encrypt: true, input: plaintext, key: encKey, iv: iv)
        let tag = try cbcTag(macKey: macKey, aad: aad, iv: iv, ciphertext: ciphertext, encryption: encryption)
        return (ciphertext, tag)
    }

    /// Decrypts and authenticates; every failure is ``failure``.
    static func decrypt(
        _ ciphertext: [UInt8], key: [UInt8], iv: [UInt8], aad: [UInt8], tag: [UInt8],
        encryption: JWEContentEncryption
    ) throws -> [UInt8] {
        guard key.count == encryption.keyLength, iv.count == encryption.ivLength, tag.count == encryption.tagLength,
            ciphertext.count <= maxInput, aad.count <= maxInput
        else {
            throw failure
        }
        if encryption.isGCM {
            do {
                return try gcm(encrypt: false, input: ciphertext, key: key, iv: iv, aad: aad, tag: tag, encryption: encryption).ciphertext
            } catch { throw failure }
        }
        let half = encryption.keyLength / 2
        var macKey = Array(key[0..<half]), encKey = Array(key[half...])
        defer { macKey.wipe(); encKey.wipe() }
        // RFC 7518 §5.2.2.2: the tag first, in constant time; nothing is decrypted before it matches.
        let expected: [UInt8]
        do { expected = try cbcTag(macKey: macKey, aad: aad, iv: iv, ciphertext: ciphertext, encryption: encryption) } catch { throw failure }
        guard ConstantTime.equals(expected, tag) else { throw failure }
        guard !ciphertext.isEmpty, ciphertext.count % 16 == 0 else { throw failure }
        do { return try cbc(encrypt: false, input: ciphertext, key: encKey, iv: iv) } catch { throw failure }
    }

    /// HMAC(MAC_KEY, AAD || IV || ciphertext || AL) truncated to the tag length (RFC 7518 §5.2.2.1).
    private static func cbcTag(
        macKey: [UInt8], aad: [UInt8], iv: [UInt8], ciphertext: [UInt8],
        encryption: JWEContentEncryption
    ) throws -> [UInt8] {
        let digest: DigestAlgorithm
        switch encryption {
        case .a128CBCHS256: digest = .sha256
        case .a192CBCHS384: digest = .sha384
        default: digest = .sha512
        }
        let bits = UInt64(aad.count) &* 8
        var input = aad + iv + ciphertext
        for shift in stride(from: 56, through: 0, by: -8) { input.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        let secret = SecretBytes(macKey)
        let mac = try input.withUnsafeBytes { try HMAC.compute(secret: secret, digest: digest, input: $0) }
        return Array(mac[0..<encryption.tagLength])
    }

    private static func cipherName(_ encryption: JWEContentEncryption) -> String {
        switch encryption {
        case .a128GCM: return "AES-128-GCM"
        case .a192GCM: return "AES-192-GCM"
        case .a256GCM: return "AES-256-GCM"
        default: return ""
        }
    }

    /// AES-GCM with a 12-byte IV and a 16-byte tag.
    private static func gcm(
        encrypt: Bool, input: [UInt8], key: [UInt8], iv: [UInt8], aad: [UInt8], tag: [UInt8]?,
        encryption: JWEContentEncryption
    ) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        try withCipher(cipherName(encryption)) { cipher, context in
            guard EVP_CipherInit_ex2(context, cipher, key, iv, encrypt ? 1 : 0, nil) == 1 else { throw cryptoFailure("initialise AES-GCM") }
            var length: Int32 = 0
            if !aad.isEmpty {
                guard EVP_CipherUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 else { throw cryptoFailure("authenticate the AAD") }
            }
            var output = [UInt8](repeating: 0, count: input.count + 16)
            var total = 0
            if !input.isEmpty {
                let ok = output.withUnsafeMutableBufferPointer { EVP_CipherUpdate(context, $0.baseAddress, &length, input, Int32(input.count)) }
                guard ok == 1 else { throw cryptoFailure("run AES-GCM") }
                total = Int(length)
            }
            if var tag {
                guard tag.count == 16,
                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, 16, &tag) == 1
                else { throw cryptoFailure("set the GCM tag") }
            }
            let ok = output.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(context, $0.baseAddress.map { $0 + total }, &length) }
            guard ok == 1 else { throw cryptoFailure("finish AES-GCM") }
            total += Int(length)
            output.removeLast(output.count - total)
            var outTag = [UInt8](repeating: 0, count: 16)
            if encrypt {
                guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, 16, &outTag) == 1 else { throw cryptoFailure("read the GCM tag") }
            }
            return (output, outTag)
        }
    }

    /// AES-CBC with PKCS #7 padding.
    static func cbc(encrypt: Bool, input: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        try withCipher("AES-\(key.count * 8)-CBC") { cipher, context in
            guard EVP_CipherInit_ex2(context, cipher, key, iv, encrypt ? 1 : 0, nil) == 1 else { throw cryptoFailure("initialise AES-CBC") }
            var output = [UInt8](repeating: 0, count: input.count + 16)
            var length: Int32 = 0
            var total = 0
            if !input.isEmpty {
                let ok = output.withUnsafeMutableBufferPointer { EVP_CipherUpdate(context, $0.baseAddress, &length, input, Int32(input.count)) }
                guard ok == 1 else { throw cryptoFailure("run AES-CBC") }
                total = Int(length)
            }
            let ok = output.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(context, $0.baseAddress.map { $0 + total }, &length) }
            guard ok == 1 else { throw cryptoFailure("finish AES-CBC") }
            total += Int(length)
            output.removeLast(output.count - total)
            return output
        }
    }

    /// Fetches `name` and runs `body` with a fresh cipher context, freed afterwards.
    static func withCipher<R>(_ name: String, _ body: (OpaquePointer, OpaquePointer) throws -> R) throws -> R {
        guard let cipher = EVP_CIPHER_fetch(nil, name, nil) else { throw cryptoFailure("fetch \(name)") }
        defer { EVP_CIPHER_free(cipher) }
        guard let context = EVP_CIPHER_CTX_new() else { throw cryptoFailure("create a cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        return try body(cipher, context)
    }
}

/// AES Key Wrap (RFC 3394) with the default IV, through libcrypto's `AES-*-WRAP` ciphers.
enum AESKeyWrap {
    /// Wraps `key` (a multiple of 8 bytes, at least 16) with `kek` (16, 24 or 32 bytes).
    static func wrap(_ key: [UInt8], kek: [UInt8]) throws -> [UInt8] {
        guard key.count >= 16, key.count % 8 == 0 else { throw cryptoFailure("wrap a key of \(key.count) bytes") }
        return try run(encrypt: true, input: key, kek: kek)
    }

    /// Unwraps; `nil` when the integrity check fails or the input is malformed.
    static func unwrap(_ wrapped: [UInt8], kek: [UInt8]) -> [UInt8]? {
        guard wrapped.count >= 24, wrapped.count % 8 == 0 else { return nil }
        return try? run(encrypt: false, input: wrapped, kek: kek)
    }

    private static func run(encrypt: Bool, input: [UInt8], kek: [UInt8]) throws -> [UInt8] {
        guard input.count <= ContentCipher.maxInput else { throw cryptoFailure("wrap a key that large") }
        guard [16, 24, 32].contains(kek.count) else { throw cryptoFailure("use a key-wrap key of \(kek.count) bytes") }
        return try ContentCipher.withCipher("AES-\(kek.count * 8)-WRAP") { cipher, context in
            guard EVP_CipherInit_ex2(context, cipher, kek, nil, encrypt ? 1 : 0, nil) == 1 else { throw cryptoFailure("initialise AES key wrap") }
            var output = [UInt8](repeating: 0, count: input.count + 16)
            var length: Int32 = 0
            let ok = output.withUnsafeMutableBufferPointer { EVP_CipherUpdate(context, $0.baseAddress, &length, input, Int32(input.count)) }
            guard ok == 1, length > 0 else { throw cryptoFailure("run AES key wrap") }
            var total = Int(length)
            let final = output.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(context, $0.baseAddress.map { $0 + total }, &length) }
            guard final == 1 else { throw cryptoFailure("finish AES key wrap") }
            total += Int(length)
            output.removeLast(output.count - total)
            guard output.count == (encrypt ? input.count + 8 : input.count - 8) else { throw cryptoFailure("run AES key wrap") }
            return output
        }
    }
}
