/// A JWS in the flattened or general JSON serialization (RFC 7515 §7.2),
/// possibly with several signatures and with unprotected header members.
public struct JSONSerializedJWS: Sendable {
    /// One signature of the JWS.
    public struct Signature: Sendable {
        /// The integrity-protected header members.
        public let protectedHeader: JSONObject
        /// The unprotected header members.
        public let unprotectedHeader: JSONObject
        /// Both merged (their names must be disjoint).
        public let header: JOSEHeader
        /// The signature bytes.
        public let signature: [UInt8]
        let signingInput: [UInt8]
    }

    /// The payload bytes.
    public let payload: [UInt8]
    /// The signatures, in document order.
    public let signatures: [Signature]

    /// Parses a flattened or general JSON serialization.
    /// - Parameters:
    ///   - json: the JWS JSON serialization (RFC 7515 §7.2).
    ///   - detachedPayload: the payload when the object has no `payload` member.
    ///   - limits: size and nesting bounds for the document.
    public init(json: String, detachedPayload: [UInt8]? = nil, limits: JOSELimits = .default) throws {
        let bytes = Array(json.utf8)
        guard bytes.count <= limits.maxTokenBytes else {
            throw JOSEError(.limitExceeded, "JWS of \(bytes.count) bytes exceeds the limit of \(limits.maxTokenBytes)")
        }
        let object = try JSONParser.parseObject(bytes, limits: limits.tokenJSON, what: "the JWS JSON serialization")
        let entries: [JSONObject]
        if let list = object["signatures"] {
            for name in ["protected", "header", "signature"] where object[name] != nil {
                throw JOSEError(.malformedToken, "a general JWS must not have a top-level \"\(name)\"")
            }
            guard let array = list.arrayValue, !array.isEmpty else {
                throw JOSEError(.malformedToken, "\"signatures\" must be a non-empty array")
            }
            entries = try array.map { element in
                guard let entry = element.objectValue else { throw JOSEError(.malformedToken, "each signature must be an object") }
                return entry
            }
        } else {
            entries = [object]
        }
        let payloadSegment: [UInt8]
        if let value = object["payload"] {
            guard let text = value.stringValue else { throw JOSEError(.malformedToken, "\"payload\" must be a string") }
            guard detachedPayload == nil else { throw JOSEError(.malformedToken, "a detached payload was supplied but the JWS carries one") }
            payloadSegment = Array(text.utf8)
        } else {
            guard detachedPayload != nil else { throw JOSEError(.malformedToken, "the JWS has no payload and none was supplied") }
            payloadSegment = []
        }

        var parsed: [Signature] = []
        var encodedPayload: Bool? = nil
        for entry in entries {
            var protectedText: [UInt8] = []
            var protected = JSONObject()
            if let value = entry["protected"] {
                guard let text = value.stringValue else { throw JOSEError(.malformedToken, "\"protected\" must be a string") }
                protectedText = Array(text.utf8)
                let decoded = try Base64URL.decode(text)
                protected = try JSONParser.parseObject(decoded, limits: limits.tokenJSON, what: "a protected header")
            }
            var unprotected = JSONObject()
            if let value = entry["header"] {
                guard let header = value.objectValue else { throw JOSEError(.malformedToken, "\"header\" must be an object") }
                unprotected = header
            }
            var merged = protected
            for member in unprotected {
                if protected[member.name] != nil {
                    throw JOSEError(.invalidHeader, "header member \"\(member.name.jsonSafePrefix)\" is both protected and unprotected", member: member.name)
                }
                merged[member.name] = member.value
            }
            let header = try JOSEHeader(members: merged)
            guard header.algorithmName != nil else { throw JOSEError(.invalidHeader, "a signature has no \"alg\"", member: "alg") }
            guard let signatureText = entry["signature"]?.stringValue else {
                throw JOSEError(.malformedToken, "a signature entry has no string \"signature\"")
            }
            let isEncoded = protected["b64"]?.boolValue ?? true
            if let encodedPayload, encodedPayload != isEncoded {
                throw JOSEError(.invalidHeader, "signatures disagree on \"b64\"", member: "b64")
            }
            encodedPayload = isEncoded
            var input = protectedText
            input.append(UInt8(ascii: "."))
            if let detachedPayload {
                input += isEncoded ? Array(Base64URL.encode(detachedPayload).utf8) : detachedPayload
            } else {
                input += payloadSegment
            }
            parsed.append(
                Signature(
                    protectedHeader: protected, unprotectedHeader: unprotected, header: header,
                    signature: try Base64URL.decode(signatureText), signingInput: input))
        }
        if let detachedPayload {
            payload = detachedPayload
        } else if encodedPayload ?? true {
            payload = try Base64URL.decode(String(decoding: payloadSegment, as: UTF8.self))
        } else {
            payload = payloadSegment
        }
        signatures = parsed
    }

    /// Verifies the signature at `index` with `key`.
    public func verify(signatureAt index: Int, with key: JWK, policy: JWSVerificationPolicy = .default) throws {
        guard signatures.indices.contains(index) else { throw JOSEError(.malformedToken, "no signature at index \(index)") }
        let entry = signatures[index]
        try entry.signature.withUnsafeBytes { signature in
            try entry.signingInput.withUnsafeBytes { input in
                try JWSVerification.verify(
                    header: entry.header, protected: entry.protectedHeader, signature: signature, input: input,
                    key: key, policy: policy)
            }
        }
    }

    /// Verifies the first signature whose header fits `key` (by `kid` when both
    /// have one) and returns its index.
    @discardableResult
    public func verify(with key: JWK, policy: JWSVerificationPolicy = .default) throws -> Int {
        var firstError: JOSEError? = nil
        for index in signatures.indices {
            if let kid = signatures[index].header.keyID, let keyID = key.keyID, kid != keyID { continue }
            do {
                try verify(signatureAt: index, with: key, policy: policy)
                return index
            } catch let error as JOSEError {
                if firstError == nil { firstError = error }
            }
        }
        throw firstError ?? JOSEError(.keyNotFound, "no signature names this key's kid")
    }
}
