/// A JWE in the flattened or general JSON serialization (RFC 7516 §7.2), for
/// decryption: one or several recipients, unprotected header members and `aad`.
///
/// Parsing is as strict as for ``CompactJWE``: no duplicate JSON members, strict
/// unpadded Base64URL, the protected, shared unprotected (`unprotected`) and
/// per-recipient (`header`) members pairwise disjoint (RFC 7516 §7.2.1), every
/// recipient with a string `alg` and all with the same `enc`, no `zip` anywhere,
/// `crit` only in the protected header, and at most ``JOSELimits/maxRecipients`` recipients.
///
/// ```swift
/// let jwe = try JSONSerializedJWE(json: text)
/// let plaintext = try jwe.decrypt(with: key)
/// ```
public struct JSONSerializedJWE: Sendable {
    /// One recipient of the JWE.
    public struct Recipient: Sendable {
        /// This recipient's own unprotected members (`header`).
        public let unprotectedHeader: JSONObject
        /// The protected, shared unprotected and per-recipient members merged.
        public let header: JOSEHeader
        /// `alg`, verbatim.
        public let keyAlgorithmName: String
        /// The JWE Encrypted Key (empty for `dir` and `ECDH-ES`).
        let encryptedKey: [UInt8]
    }

    /// The integrity-protected header members (empty when the JWE has none).
    public let protectedHeader: JSONObject
    /// The shared unprotected header members (`unprotected`).
    public let sharedUnprotectedHeader: JSONObject
    /// The recipients, in document order (one for the flattened serialization).
    public let recipients: [Recipient]
    /// `enc`, verbatim (the same for every recipient).
    public let encryptionName: String
    /// The JWE AAD member (`aad`), decoded; `nil` when absent.
    public let additionalAuthenticatedData: [UInt8]?
    let iv: [UInt8]
    let ciphertext: [UInt8]
    let tag: [UInt8]
    /// ASCII(BASE64URL(protected)), followed by '.' and ASCII(BASE64URL(aad)) when there is an `aad` (RFC 7516 §5.1 step 14).
    let aad: [UInt8]

    /// Parses a flattened or general JSON serialization.
    /// - Parameters:
    ///   - json: the JWE JSON serialization (RFC 7516 §7.2).
    ///   - limits: size, nesting and recipient-count bounds.
    /// - Throws: ``JOSEError``: `.limitExceeded`, `.malformedToken`, `.invalidBase64URL`, `.invalidJSON`,
    ///   `.duplicateJSONMember`, `.invalidHeader`, `.unsupportedAlgorithm` (`zip`).
    public init(json: String, limits: JOSELimits = .default) throws {
        let bytes = Array(json.utf8)
        guard bytes.count <= limits.maxTokenBytes else {
            throw JOSEError(.limitExceeded, "JWE of \(bytes.count) bytes exceeds the limit of \(limits.maxTokenBytes)")
        }
        let object = try JSONParser.parseObject(bytes, limits: limits.tokenJSON, what: "the JWE JSON serialization")
        func string(_ name: String, in container: JSONObject, required: Bool) throws -> String? {
            guard let value = container[name] else {
                if required { throw JOSEError(.malformedToken, "the JWE has no \"\(name)\"") }
                return nil
            }
            guard let text = value.stringValue else { throw JOSEError(.malformedToken, "\"\(name)\" must be a string") }
            return text
        }
        func decode(_ name: String, in container: JSONObject, required: Bool) throws -> [UInt8]? {
            guard let text = try string(name, in: container, required: required) else { return nil }
            do { return try Base64URL.decode(text) } catch let error as JOSEError {
                throw JOSEError(.invalidBase64URL, "\"\(name)\": \(error.reason)")
            }
        }

        var protectedText = ""
        var protected = JSONObject()
        if let text = try string("protected", in: object, required: false) {
            protectedText = text
            let decoded = try decode("protected", in: object, required: true) ?? []
            protected = try JSONParser.parseObject(decoded, limits: limits.tokenJSON, what: "the protected header")
        }
        var shared = JSONObject()
        if let value = object["unprotected"] {
            guard let header = value.objectValue else { throw JOSEError(.malformedToken, "\"unprotected\" must be an object") }
            shared = header
        }
        for member in shared where protected[member.name] != nil {
            throw JOSEError(.invalidHeader, "header member \"\(member.name.jsonSafePrefix)\" is both protected and unprotected", member: member.name)
        }

        let entries: [JSONObject]
        if let list = object["recipients"] {
            for name in ["header", "encrypted_key"] where object[name] != nil {
                throw JOSEError(.malformedToken, "a general JWE must not have a top-level \"\(name)\"")
            }
            guard let array = list.arrayValue, !array.isEmpty else {
                throw JOSEError(.malformedToken, "\"recipients\" must be a non-empty array")
            }
            guard array.count <= limits.maxRecipients else {
                throw JOSEError(.limitExceeded, "the JWE has \(array.count) recipients, more than the limit of \(limits.maxRecipients)")
            }
            entries = try array.map { element in
                guard let entry = element.objectValue else { throw JOSEError(.malformedToken, "each recipient must be an object") }
                return entry
            }
        } else {
            entries = [object]
        }

        var parsed: [Recipient] = []
        var encryption: String? = nil
        for entry in entries {
            var own = JSONObject()
            if let value = entry["header"] {
                guard let header = value.objectValue else { throw JOSEError(.malformedToken, "\"header\" must be an object") }
                own = header
            }
            var merged = protected
            for member in shared { merged[member.name] = member.value }
            for member in own {
                if merged[member.name] != nil {
                    throw JOSEError(.invalidHeader, "header member \"\(member.name.jsonSafePrefix)\" appears in more than one header", member: member.name)
                }
                merged[member.name] = member.value
            }
            if merged["zip"] != nil {
                throw JOSEError(.unsupportedAlgorithm, "compressed JWE (\"zip\") is refused by design", member: "zip")
            }
            let header = try JOSEHeader(members: merged)
            guard let alg = header.algorithmName else { throw JOSEError(.invalidHeader, "a recipient has no \"alg\"", member: "alg") }
            guard let enc = merged["enc"]?.stringValue else {
                throw JOSEError(.invalidHeader, "a recipient has no string \"enc\"", member: "enc")
            }
            if let encryption, encryption != enc {
                throw JOSEError(.invalidHeader, "recipients disagree on \"enc\"", member: "enc")
            }
            encryption = enc
            let encryptedKey = try decode("encrypted_key", in: entry, required: false) ?? []
            parsed.append(Recipient(unprotectedHeader: own, header: header, keyAlgorithmName: alg, encryptedKey: encryptedKey))
        }

        let iv = try decode("iv", in: object, required: true) ?? []
        let ciphertext = try decode("ciphertext", in: object, required: true) ?? []
        let tag = try decode("tag", in: object, required: true) ?? []
        guard !iv.isEmpty, !tag.isEmpty else { throw JOSEError(.malformedToken, "the initialization vector and tag must not be empty") }
        var aad = Array(protectedText.utf8)
        let aadText = try string("aad", in: object, required: false)
        if let aadText {
            additionalAuthenticatedData = try decode("aad", in: object, required: true)
            aad.append(UInt8(ascii: "."))
            aad += Array(aadText.utf8)
        } else {
            additionalAuthenticatedData = nil
        }
        protectedHeader = protected
        sharedUnprotectedHeader = shared
        recipients = parsed
        encryptionName = encryption ?? ""
        self.iv = iv
        self.ciphertext = ciphertext
        self.tag = tag
        self.aad = aad
    }

    private func decryption(_ index: Int) -> JWEDecryption {
        let recipient = recipients[index]
        return JWEDecryption(
            header: recipient.header, protected: protectedHeader, keyAlgorithmName: recipient.keyAlgorithmName,
            encryptionName: encryptionName, encryptedKey: recipient.encryptedKey, iv: iv, ciphertext: ciphertext,
            tag: tag, aad: aad)
    }

    /// Decrypts the recipient at `index` with `key`, with the rules of ``CompactJWE/decrypt(with:policy:)-(JWK,_)``.
    /// - Throws: as ``CompactJWE/decrypt(with:policy:)-(JWK,_)``, and `.malformedToken` for an index out of range.
    public func decrypt(recipientAt index: Int, with key: JWK, policy: JWEDecryptionPolicy = .default) throws -> [UInt8] {
        guard recipients.indices.contains(index) else { throw JOSEError(.malformedToken, "no recipient at index \(index)") }
        return try decryption(index).decrypt(with: key, policy: policy)
    }

    /// Decrypts with `key`: the recipients that fit it (same `kid` when both have
    /// one; an `alg` the key admits) are tried in document order, and the first
    /// that decrypts wins.
    /// - Throws: the first recipient's error when none decrypts; `.keyNotFound` when no recipient fits the key.
    public func decrypt(with key: JWK, policy: JWEDecryptionPolicy = .default) throws -> [UInt8] {
        var firstError: JOSEError? = nil
        for index in recipients.indices {
            let recipient = recipients[index]
            if let kid = recipient.header.keyID, let keyID = key.keyID, kid != keyID { continue }
            if let algorithm = try? JWEKeyAlgorithm(headerValue: recipient.keyAlgorithmName),
                let encryption = try? JWEContentEncryption(headerValue: encryptionName),
                !key.admits(algorithm, encryption: encryption), recipients.count > 1
            {
                continue
            }
            do {
                return try decryption(index).decrypt(with: key, policy: policy)
            } catch let error as JOSEError {
                if firstError == nil { firstError = error }
            }
        }
        throw firstError ?? JOSEError(.keyNotFound, "no recipient of the JWE fits the key")
    }

    /// Decrypts with a key of `keys`: for each recipient in document order, the key
    /// ``CompactJWE/key(in:policy:)`` would choose for it (by `kid`, else the single
    /// key that fits); the first recipient that decrypts wins.
    /// - Throws: the first recipient's error when none decrypts.
    public func decrypt(with keys: JWKSet, policy: JWEDecryptionPolicy = .default) throws -> [UInt8] {
        var firstError: JOSEError? = nil
        for index in recipients.indices {
            do {
                let recipient = recipients[index]
                let key = try JWEKeySelection.key(
                    in: keys, keyID: recipient.header.keyID, keyAlgorithmName: recipient.keyAlgorithmName,
                    encryptionName: encryptionName)
                return try decryption(index).decrypt(with: key, policy: policy)
            } catch let error as JOSEError {
                if firstError == nil { firstError = error }
            }
        }
        throw firstError ?? JOSEError(.keyNotFound, "the JWE has no recipient")
    }

    /// Decrypts a UTF-8 plaintext with `key` (see ``decrypt(with:policy:)-(JWK,_)``).
    /// - Throws: as ``decrypt(with:policy:)-(JWK,_)``, and `.decryptionFailed` when the plaintext is not UTF-8.
    public func decryptString(with key: JWK, policy: JWEDecryptionPolicy = .default) throws -> String {
        let bytes = try decrypt(with: key, policy: policy)
        let text = String(decoding: bytes, as: UTF8.self)
        guard Array(text.utf8) == bytes else { throw JOSEError(.decryptionFailed, "the JWE plaintext is not UTF-8") }
        return text
    }
}
