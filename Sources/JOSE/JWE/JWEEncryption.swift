extension CompactJWE {
    /// Encrypts `plaintext` to `key` and returns a compact JWE.
    ///
    /// The key must admit `algorithm` (``JWK/admits(_:encryption:)``), its `use`/`key_ops`
    /// must permit encryption, and an RSA key must have at least 2048 bits. The
    /// protected header holds `alg`, `enc`, `kid` (from the key, when it has one),
    /// `cty` when `contentType` is given, `epk` for ECDH-ES, then the members of
    /// `header` (which may carry `apu`/`apv`, but cannot replace `alg`, `enc`, `epk`, `iv`, `tag` or set `zip`).
    /// - Parameters:
    ///   - plaintext: the bytes to encrypt.
    ///   - key: the recipient's public key (RSA, EC) or the shared `oct` key.
    ///   - algorithm: the key management algorithm.
    ///   - encryption: the content encryption.
    ///   - contentType: the `cty` header (`"JWT"` for a nested JWT).
    ///   - header: further protected header members.
    /// - Throws: ``JOSEError`` `.keyAlgorithmMismatch`, `.keyUsageNotPermitted`, `.weakKey`, `.invalidHeader`, `.cryptoFailure`.
    public static func encrypt(
        _ plaintext: [UInt8], to key: JWK, algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption,
        contentType: String? = nil, header: JSONObject = JSONObject()
    ) throws -> String {
        try key.checkJWE(algorithm, encryption: encryption, decrypting: false, minimumRSAKeyBits: 2048)
        for reserved in ["alg", "enc", "epk", "zip", "iv", "tag"] where header[reserved] != nil {
            throw JOSEError(.invalidHeader, "the header member \"\(reserved)\" is set by encryption", member: reserved)
        }
        var members = JSONObject()
        members["alg"] = .string(algorithm.rawValue)
        members["enc"] = .string(encryption.rawValue)
        if let keyID = key.keyID, header["kid"] == nil { members["kid"] = .string(keyID) }
        if let contentType { members["cty"] = .string(contentType) }

        var cek: [UInt8]
        var encryptedKey: [UInt8] = []
        switch (algorithm, key.storage) {
        case (.direct, .symmetric(let secret)):
            cek = secret.exposedCopy
        case (.a128KW, .symmetric(let secret)), (.a192KW, .symmetric(let secret)), (.a256KW, .symmetric(let secret)):
            cek = try SecureRandom.bytes(encryption.keyLength)
            var kek = secret.exposedCopy
            defer { kek.wipe() }
            encryptedKey = try AESKeyWrap.wrap(cek, kek: kek)
        case (_, .symmetric(let secret)) where algorithm.gcmKeyWrap != nil:
            guard let wrap = algorithm.gcmKeyWrap else { throw cryptoFailure("choose the key-wrap cipher") }
            cek = try SecureRandom.bytes(encryption.keyLength)
            var kek = secret.exposedCopy
            defer { kek.wipe() }
            let wrapIV = try SecureRandom.bytes(wrap.ivLength)
            let sealed = try ContentCipher.encrypt(cek, key: kek, iv: wrapIV, aad: [], encryption: wrap)
            encryptedKey = sealed.ciphertext
            members["iv"] = .string(Base64URL.encode(wrapIV))
            members["tag"] = .string(Base64URL.encode(sealed.tag))
        case (.rsaOAEP, .asymmetric(let evp)), (.rsaOAEP256, .asymmetric(let evp)):
            cek = try SecureRandom.bytes(encryption.keyLength)
            encryptedKey = try RSAOAEP.encrypt(cek, key: evp, sha256: algorithm == .rsaOAEP256)
        case (_, .asymmetric(let recipient)) where algorithm.isECDH:
            let spec: JWK.GenerationSpec
            switch key.keyType {
            case .ec(let curve): spec = .ec(curve)
            case .x25519: spec = .x25519
            default: throw JOSEError(.keyAlgorithmMismatch, "\(algorithm) needs an EC or X25519 key", member: "alg")
            }
            let ephemeral = try JWK.generate(spec)
            guard let ephemeralKey = ephemeral.evpKey else { throw cryptoFailure("generate an ephemeral key") }
            var epk = JSONObject()
            for member in ephemeral.publicMembers { epk[member.name] = .string(member.value) }
            members["epk"] = .object(epk)
            let apu = try partyInfo(header, "apu"), apv = try partyInfo(header, "apv")
            var z = try ECDHES.sharedSecret(privateKey: ephemeralKey, peer: recipient)
            defer { z.wipe() }
            let length = algorithm.keyWrapLength ?? encryption.keyLength
            let algorithmID = algorithm == .ecdhES ? encryption.rawValue : algorithm.rawValue
            let agreed = ECDHES.concatKDF(z: z, keyLength: length, algorithmID: algorithmID, apu: apu, apv: apv)
            if algorithm == .ecdhES {
                cek = agreed
            } else {
                var kek = agreed
                defer { kek.wipe() }
                cek = try SecureRandom.bytes(encryption.keyLength)
                encryptedKey = try AESKeyWrap.wrap(cek, kek: kek)
            }
        default:
            throw JOSEError(.keyAlgorithmMismatch, "a \(key.keyType) key cannot be used with \(algorithm)", member: "alg")
        }
        defer { cek.wipe() }
        for member in header { members[member.name] = member.value }

        let protected = Base64URL.encode(Array(JSONValue.object(members).jsonString().utf8))
        let iv = try SecureRandom.bytes(encryption.ivLength)
        let sealed = try ContentCipher.encrypt(plaintext, key: cek, iv: iv, aad: Array(protected.utf8), encryption: encryption)
        return [
            protected, Base64URL.encode(encryptedKey), Base64URL.encode(iv), Base64URL.encode(sealed.ciphertext),
            Base64URL.encode(sealed.tag),
        ].joined(separator: ".")
    }

    /// Encrypts a UTF-8 string (a signed JWT, for a nested JWT with `contentType: "JWT"`).
    /// - Throws: as the `[UInt8]` overload.
    public static func encrypt(
        _ plaintext: String, to key: JWK, algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption,
        contentType: String? = nil, header: JSONObject = JSONObject()
    ) throws -> String {
        try encrypt(Array(plaintext.utf8), to: key, algorithm: algorithm, encryption: encryption, contentType: contentType, header: header)
    }
}
