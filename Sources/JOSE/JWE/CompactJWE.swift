import CLibCrypto

/// A JWE in compact serialization (RFC 7516 §7.1), parsed strictly: exactly
/// five segments, strict unpadded Base64URL, a protected header that is a JSON
/// object without duplicate members, with string `alg` and `enc`, and no `zip`.
///
/// Parsing checks shape only; ``decrypt(with:policy:)-(JWK,_)`` checks the algorithms
/// against the key and the policy, then authenticates and decrypts.
///
/// ```swift
/// let jwe = try CompactJWE(text)
/// let plaintext = try jwe.decrypt(with: key)
/// let token = try CompactJWE.encrypt(plaintext, to: key, algorithm: .rsaOAEP256, encryption: .a256GCM, contentType: "JWT")
/// ```
public struct CompactJWE: Sendable {
    /// The protected header (a compact JWE has no other).
    public let header: JOSEHeader
    /// `alg`, verbatim.
    public let keyAlgorithmName: String
    /// `enc`, verbatim.
    public let encryptionName: String
    /// The JWE Encrypted Key (empty for `dir` and `ECDH-ES`).
    let encryptedKey: [UInt8]
    /// The initialization vector.
    let iv: [UInt8]
    /// The ciphertext.
    let ciphertext: [UInt8]
    /// The authentication tag.
    let tag: [UInt8]
    /// ASCII(BASE64URL(protected header)): the additional authenticated data.
    let aad: [UInt8]

    /// Parses a compact JWE.
    /// - Parameters:
    ///   - token: `header.encryptedKey.iv.ciphertext.tag`.
    ///   - limits: size and nesting bounds for the token and its header.
    /// - Throws: ``JOSEError``: `.limitExceeded`, `.malformedToken`, `.invalidBase64URL`, `.invalidJSON`,
    ///   `.duplicateJSONMember`, `.invalidHeader`, `.unsupportedAlgorithm` (`zip`).
    public init(_ token: String, limits: JOSELimits = .default) throws {
        let bytes = Array(token.utf8)
        guard bytes.count <= limits.maxTokenBytes else {
            throw JOSEError(.limitExceeded, "token of \(bytes.count) bytes exceeds the limit of \(limits.maxTokenBytes)")
        }
        let segments = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 5 else {
            throw JOSEError(.malformedToken, "a compact JWE has exactly five dot-separated segments; found \(segments.count)")
        }
        guard !segments[0].isEmpty else { throw JOSEError(.malformedToken, "the header segment is empty") }
        func decode(_ index: Int, _ name: String) throws -> [UInt8] {
            do {
                return try Array(segments[index]).withUnsafeBufferPointer { try Base64URL.decode($0) }
            } catch let error as JOSEError {
                throw JOSEError(.invalidBase64URL, "\(name) segment: \(error.reason)")
            }
        }
        let headerBytes = try decode(0, "header")
        let members = try JSONParser.parseObject(headerBytes, limits: limits.tokenJSON, what: "the protected header")
        let header = try JOSEHeader(members: members)
        guard let alg = header.algorithmName else { throw JOSEError(.invalidHeader, "the protected header has no \"alg\"", member: "alg") }
        guard let enc = members["enc"]?.stringValue else {
            throw JOSEError(.invalidHeader, "the protected header has no string \"enc\"", member: "enc")
        }
        if members["zip"] != nil {
            throw JOSEError(.unsupportedAlgorithm, "compressed JWE (\"zip\") is refused by design", member: "zip")
        }
        encryptedKey = try decode(1, "encrypted key")
        iv = try decode(2, "initialization vector")
        ciphertext = try decode(3, "ciphertext")
        tag = try decode(4, "authentication tag")
        guard !iv.isEmpty, !tag.isEmpty else { throw JOSEError(.malformedToken, "the initialization vector and tag segments must not be empty") }
        self.header = header
        keyAlgorithmName = alg
        encryptionName = enc
        aad = Array(segments[0])
    }

    /// Decrypts with `key` under `policy` and returns the plaintext.
    ///
    /// The key management algorithm must be one the key admits
    /// (``JWK/admits(_:encryption:)``), in the policy's allow-lists, and permitted by
    /// the key's `use`/`key_ops`. A failed key unwrap (RSA-OAEP, AES Key Wrap, AES-GCM key wrap)
    /// continues with a random CEK (RFC 7516 §11.5), so it fails exactly like a
    /// wrong tag.
    /// - Throws: ``JOSEError``: `.unsupportedAlgorithm`, `.algorithmNotAllowed`, `.keyAlgorithmMismatch`,
    ///   `.keyUsageNotPermitted`, `.weakKey`, `.invalidKey`, `.invalidHeader`, `.unsupportedCriticalHeader`,
    ///   `.malformedToken`, and `.decryptionFailed` for every failure of the decryption itself.
    public func decrypt(with key: JWK, policy: JWEDecryptionPolicy = .default) throws -> [UInt8] {
        try JWEDecryption(
            header: header, protected: header.members, keyAlgorithmName: keyAlgorithmName, encryptionName: encryptionName,
            encryptedKey: encryptedKey, iv: iv, ciphertext: ciphertext, tag: tag, aad: aad
        )
        .decrypt(with: key, policy: policy)
    }

    /// Decrypts a UTF-8 plaintext (a nested JWT, say).
    /// - Throws: as ``decrypt(with:policy:)-(JWK,_)``, and `.decryptionFailed` when the plaintext is not UTF-8.
    public func decryptString(with key: JWK, policy: JWEDecryptionPolicy = .default) throws -> String {
        let bytes = try decrypt(with: key, policy: policy)
        let text = String(decoding: bytes, as: UTF8.self)
        guard Array(text.utf8) == bytes else {
            throw JOSEError(.decryptionFailed, "the JWE plaintext is not UTF-8")
        }
        return text
    }

    static func partyInfo(_ members: JSONObject, _ name: String) throws -> [UInt8] {
        guard let value = members[name] else { return [] }
        guard let text = value.stringValue, let bytes = try? Base64URL.decode(text) else {
            throw JOSEError(.invalidHeader, "\"\(name)\" must be a Base64URL string", member: name)
        }
        return bytes
    }
}

extension [UInt8] {
    /// Overwrites the bytes with zeros (key material no longer needed).
    mutating func wipe() {
        withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
        }
    }
}
