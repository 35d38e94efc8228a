/// The decryption of one JWE recipient, shared by the compact and JSON
/// serializations: the checks against the key and the policy, the CEK (from the
/// key management algorithm), and the content decryption.
struct JWEDecryption {
    /// The header that applies to this recipient: protected, shared unprotected and
    /// per-recipient members merged (for a compact JWE, the protected header alone).
    let header: JOSEHeader
    /// The integrity-protected members (where `crit` must be).
    let protected: JSONObject
    let keyAlgorithmName: String
    let encryptionName: String
    let encryptedKey: [UInt8]
    let iv: [UInt8]
    let ciphertext: [UInt8]
    let tag: [UInt8]
    /// The additional authenticated data of the content encryption.
    let aad: [UInt8]

    /// The algorithms this recipient names, parsed (RSA1_5, PBES2 and unknown names refused).
    func algorithms() throws -> (JWEKeyAlgorithm, JWEContentEncryption) {
        (try JWEKeyAlgorithm(headerValue: keyAlgorithmName), try JWEContentEncryption(headerValue: encryptionName))
    }

    /// Decrypts with `key` under `policy` (see ``CompactJWE/decrypt(with:policy:)-(JWK,_)``).
    func decrypt(with key: JWK, policy: JWEDecryptionPolicy) throws -> [UInt8] {
        if header.hasCritical {
            try header.checkCritical(protected: protected, understood: policy.understoodCriticalHeaders)
        }
        let (algorithm, encryption) = try algorithms()
        if let allowed = policy.allowedKeyAlgorithms, !allowed.contains(algorithm) {
            throw JOSEError(.algorithmNotAllowed, "\(algorithm) is not in the allowed key management algorithms", member: "alg")
        }
        if let allowed = policy.allowedContentEncryptions, !allowed.contains(encryption) {
            throw JOSEError(.algorithmNotAllowed, "\(encryption) is not in the allowed content encryptions", member: "enc")
        }
        try key.checkJWE(algorithm, encryption: encryption, decrypting: true, minimumRSAKeyBits: policy.minimumRSAKeyBits)
        guard encryptedKey.isEmpty != algorithm.carriesEncryptedKey else {
            throw JOSEError(
                .malformedToken, algorithm.carriesEncryptedKey ? "\(algorithm) needs an encrypted key" : "\(algorithm) must have an empty encrypted key segment"
            )
        }
        var cek = try contentKey(algorithm: algorithm, encryption: encryption, key: key)
        defer { cek.wipe() }
        return try ContentCipher.decrypt(ciphertext, key: cek, iv: iv, aad: aad, tag: tag, encryption: encryption)
    }

    /// The CEK; a random one of the right length when an unwrap fails.
    private func contentKey(algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption, key: JWK) throws -> [UInt8] {
        let unwrapped: [UInt8]?
        switch (algorithm, key.storage) {
        case (.direct, .symmetric(let secret)):
            return secret.exposedCopy
        case (.a128KW, .symmetric(let secret)), (.a192KW, .symmetric(let secret)), (.a256KW, .symmetric(let secret)):
            var kek = secret.exposedCopy
            defer { kek.wipe() }
            unwrapped = AESKeyWrap.unwrap(encryptedKey, kek: kek)
        case (_, .symmetric(let secret)) where algorithm.gcmKeyWrap != nil:
            guard let wrap = algorithm.gcmKeyWrap, let ivText = header.members["iv"]?.stringValue, let tagText = header.members["tag"]?.stringValue,
                let wrapIV = try? Base64URL.decode(ivText), let wrapTag = try? Base64URL.decode(tagText)
            else {
                throw JOSEError(.invalidHeader, "\(algorithm) needs Base64URL \"iv\" and \"tag\" header members", member: "iv")
            }
            var kek = secret.exposedCopy
            defer { kek.wipe() }
            unwrapped = try? ContentCipher.decrypt(encryptedKey, key: kek, iv: wrapIV, aad: [], tag: wrapTag, encryption: wrap)
        case (.rsaOAEP, .asymmetric(let evp)), (.rsaOAEP256, .asymmetric(let evp)):
            unwrapped = RSAOAEP.decrypt(encryptedKey, key: evp, sha256: algorithm == .rsaOAEP256)
        case (_, .asymmetric(let evp)) where algorithm.isECDH:
            let agreed = try agreedKey(algorithm: algorithm, encryption: encryption, key: key, evp: evp)
            guard algorithm != .ecdhES else { return agreed }
            var kek = agreed
            defer { kek.wipe() }
            unwrapped = AESKeyWrap.unwrap(encryptedKey, kek: kek)
        default:
            throw JOSEError(.keyAlgorithmMismatch, "a \(key.keyType) key cannot be used with \(algorithm)", member: "alg")
        }
        if let unwrapped, unwrapped.count == encryption.keyLength { return unwrapped }
        return try SecureRandom.bytes(encryption.keyLength)
    }

    /// The ECDH-ES key agreement output: the CEK (`ECDH-ES`) or the key-wrap key.
    private func agreedKey(algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption, key: JWK, evp: EVPKey) throws -> [UInt8] {
        guard let epkObject = header.members["epk"]?.objectValue else {
            throw JOSEError(.invalidHeader, "\(algorithm) needs an \"epk\" object", member: "epk")
        }
        guard epkObject["d"] == nil else { throw JOSEError(.invalidHeader, "\"epk\" must be a public key", member: "epk") }
        let epk: JWK
        do { epk = try JWK(embeddedJSONObject: epkObject) } catch let error as JOSEError {
            throw JOSEError(.invalidHeader, "\"epk\" is not a valid public key (\(error.reason))", member: "epk")
        }
        guard epk.keyType == key.keyType, let peer = epk.evpKey else {
            throw JOSEError(.invalidHeader, "\"epk\" is not a key on the recipient's curve (\(key.keyType))", member: "epk")
        }
        let apu = try CompactJWE.partyInfo(header.members, "apu"), apv = try CompactJWE.partyInfo(header.members, "apv")
        var z: [UInt8]
        do { z = try ECDHES.sharedSecret(privateKey: evp, peer: peer) } catch {
            throw JOSEError(.invalidHeader, "\"epk\" does not agree with the recipient's key", member: "epk")
        }
        defer { z.wipe() }
        let length = algorithm.keyWrapLength ?? encryption.keyLength
        let algorithmID = algorithm == .ecdhES ? encryption.rawValue : algorithm.rawValue
        return ECDHES.concatKDF(z: z, keyLength: length, algorithmID: algorithmID, apu: apu, apv: apv)
    }
}
