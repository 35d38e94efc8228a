#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JWS in compact serialization (RFC 7515 §7.1), parsed strictly: exactly
/// three segments, strict Base64URL, a protected header that is a JSON object
/// without duplicate members and with a string `alg`.
///
/// Parsing checks shape only; call ``verify(with:policy:)`` before trusting
/// anything in ``payload``.
public struct CompactJWS: Sendable {
    /// The protected header.
    public let header: JOSEHeader
    /// The payload bytes (decoded, or verbatim for `b64: false`).
    public let payload: [UInt8]
    /// The signature bytes.
    public let signature: [UInt8]
    /// Whether the payload segment was empty and the payload supplied separately.
    public let isDetached: Bool
    /// `BASE64URL(header) '.' payload-segment`: the bytes the signature covers.
    let signingInput: [UInt8]

    /// Parses a compact JWS.
    /// - Parameter detachedPayload: the payload of a token whose middle segment is empty (RFC 7515 Appendix F).
    /// - Throws: ``JOSEError``: `.limitExceeded`, `.malformedToken`, `.invalidBase64URL`, `.invalidJSON`,
    ///   `.duplicateJSONMember`, `.invalidHeader`.
    public init(_ token: String, detachedPayload: [UInt8]? = nil, limits: JOSELimits = .default) throws {
        var token = token
        self = try token.withUTF8 { try CompactJWS(bytes: $0, detachedPayload: detachedPayload, limits: limits) }
    }

    /// Parses a compact JWS from its ASCII bytes.
    public init(bytes: UnsafeBufferPointer<UInt8>, detachedPayload: [UInt8]? = nil, limits: JOSELimits = .default) throws {
        guard bytes.count <= limits.maxTokenBytes else {
            throw JOSEError(.limitExceeded, "token of \(bytes.count) bytes exceeds the limit of \(limits.maxTokenBytes)")
        }
        guard !bytes.isEmpty else { throw JOSEError(.malformedToken, "the token is empty") }
        var firstDot = -1, secondDot = -1, extraDot = false
        if let base = bytes.baseAddress {
            // memchr finds the separators far faster than a byte loop over ~1 KB of Base64URL.
            let raw = UnsafeRawPointer(base)
            if let first = memchr(raw, Int32(UInt8(ascii: ".")), bytes.count) {
                firstDot = raw.distance(to: first)
                let afterFirst = firstDot + 1
                if let second = memchr(raw + afterFirst, Int32(UInt8(ascii: ".")), bytes.count - afterFirst) {
                    secondDot = raw.distance(to: second)
                    let afterSecond = secondDot + 1
                    extraDot = memchr(raw + afterSecond, Int32(UInt8(ascii: ".")), bytes.count - afterSecond) != nil
                }
            }
        }
        guard secondDot >= 0, !extraDot else {
            let found = extraDot ? "more than three" : String(firstDot < 0 ? 1 : 2)
            throw JOSEError(.malformedToken, "a compact JWS has exactly three dot-separated segments; found \(found)")
        }
        let headerSegment = UnsafeBufferPointer(rebasing: bytes[0..<firstDot])
        let payloadSegment = UnsafeBufferPointer(rebasing: bytes[(firstDot + 1)..<secondDot])
        let signatureSegment = UnsafeBufferPointer(rebasing: bytes[(secondDot + 1)...])
        guard !headerSegment.isEmpty else { throw JOSEError(.malformedToken, "the header segment is empty") }

        let headerBytes: [UInt8]
        do { headerBytes = try Base64URL.decode(headerSegment) } catch let error as JOSEError {
            throw JOSEError(.invalidBase64URL, "header segment: \(error.reason)")
        }
        let members = try JSONParser.parseObject(headerBytes, limits: limits.tokenJSON, what: "the protected header")
        let header = try JOSEHeader(members: members)
        guard header.algorithmName != nil else {
            throw JOSEError(.invalidHeader, "the protected header has no \"alg\"", member: "alg")
        }
        do { signature = try Base64URL.decode(signatureSegment) } catch let error as JOSEError {
            throw JOSEError(.invalidBase64URL, "signature segment: \(error.reason)")
        }

        if let detachedPayload {
            guard payloadSegment.isEmpty else {
                throw JOSEError(.malformedToken, "a detached payload was supplied but the token carries one")
            }
            isDetached = true
            payload = detachedPayload
            var input = [UInt8](UnsafeBufferPointer(rebasing: bytes[0...firstDot]))
            if header.base64EncodedPayload {
                input += Array(Base64URL.encode(detachedPayload).utf8)
            } else {
                input += detachedPayload
            }
            signingInput = input
        } else {
            isDetached = false
            // The signing input is the token up to the second dot: one copy.
            signingInput = [UInt8](UnsafeBufferPointer(rebasing: bytes[0..<secondDot]))
            if header.base64EncodedPayload {
                do { payload = try Base64URL.decode(payloadSegment) } catch let error as JOSEError {
                    throw JOSEError(.invalidBase64URL, "payload segment: \(error.reason)")
                }
            } else {
                payload = Array(payloadSegment)
            }
        }
        self.header = header
    }

    /// Verifies the signature with `key` under `policy`.
    /// - Throws: ``JOSEError`` naming the first rule the token breaks; `.invalidSignature` when the signature is wrong.
    public func verify(with key: JWK, policy: JWSVerificationPolicy = .default) throws {
        try JWSVerification.check(header: header, protected: header.members, key: key, policy: policy)
        let algorithm = try policy.algorithm(named: header.algorithmName, for: key)
        let valid = try signature.withUnsafeBytes { signatureBytes in
            try signingInput.withUnsafeBytes { inputBytes in
                try SignatureVerifier.isValid(signature: signatureBytes, input: inputBytes, key: key, algorithm: algorithm)
            }
        }
        guard valid else { throw JOSEError(.invalidSignature, "the \(algorithm) signature does not verify with the \(key.keyType) key") }
    }

    /// Verifies with the one key of `keys` that fits the token (by `kid`, or
    /// the single key admitting the algorithm) and returns that key.
    @discardableResult
    public func verify(with keys: JWKSet, policy: JWSVerificationPolicy = .default) throws -> JWK {
        let algorithm = try JWSAlgorithm(headerValue: header.algorithmName ?? "")
        let key = try keys.selectKey(keyID: header.keyID, algorithm: algorithm, allowMixedKeySet: policy.allowsMixedKeySets)
        try verify(with: key, policy: policy)
        return key
    }
}

/// Header rules shared by the compact and JSON serializations.
enum JWSVerification {
    static func check(header: JOSEHeader, protected: JSONObject, key: JWK, policy: JWSVerificationPolicy) throws {
        if protected["crit"] != nil || header.members["crit"] != nil {
            var understood = policy.understoodCriticalHeaders
            if policy.allowsUnencodedPayload { understood.insert("b64") }
            try header.checkCritical(protected: protected, understood: understood)
        }
        if header.members["b64"] != nil {
            guard protected["b64"] != nil, header.critical?.contains("b64") == true else {
                throw JOSEError(.invalidHeader, "\"b64\" must be in the protected header and listed in \"crit\" (RFC 7797 §6)", member: "b64")
            }
            if !header.base64EncodedPayload, !policy.allowsUnencodedPayload {
                throw JOSEError(.unsupportedCriticalHeader, "unencoded payloads (b64: false) are not enabled", member: "b64")
            }
        }
    }
}
