#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JWS in compact serialization (RFC 7515 §7.1), parsed strictly: exactly
/// three segments, strict Base64URL, a protected header that is a JSON object
/// without duplicate members and with a string `alg`.
///
/// Parsing checks shape only; call ``verify(with:policy:)-(JWK,_)`` (or the key-set
/// overload) before trusting
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
    /// - Parameters:
    ///   - token: the compact serialization, `header.payload.signature`.
    ///   - detachedPayload: the payload of a token whose middle segment is empty (RFC 7515 Appendix F).
    ///   - limits: size and nesting bounds for the token and its header.
    /// - Throws: ``JOSEError``: `.limitExceeded`, `.malformedToken`, `.invalidBase64URL`, `.invalidJSON`,
    ///   `.duplicateJSONMember`, `.invalidHeader`.
    public init(_ token: String, detachedPayload: [UInt8]? = nil, limits: JOSELimits = .default) throws {
        self = try token.withUTF8InPlace { try CompactJWS(bytes: $0, detachedPayload: detachedPayload, limits: limits) }
    }

    /// Parses a compact JWS from its ASCII bytes.
    public init(bytes: UnsafeBufferPointer<UInt8>, detachedPayload: [UInt8]? = nil, limits: JOSELimits = .default) throws {
        let segments = try CompactSegments(bytes, limits: limits)
        let header = segments.header
        do { signature = try Base64URL.decode(segments.signature) } catch let error as JOSEError {
            throw JOSEError(.invalidBase64URL, "signature segment: \(error.reason)")
        }
        if let detachedPayload {
            guard segments.payload.isEmpty else {
                throw JOSEError(.malformedToken, "a detached payload was supplied but the token carries one")
            }
            isDetached = true
            payload = detachedPayload
            // The header segment and its dot, then the payload as it would have been written.
            let headerAndDot = segments.signingInput.count - segments.payload.count
            var input = [UInt8](UnsafeBufferPointer(rebasing: bytes[0..<headerAndDot]))
            if header.base64EncodedPayload {
                input += Array(Base64URL.encode(detachedPayload).utf8)
            } else {
                input += detachedPayload
            }
            signingInput = input
        } else {
            isDetached = false
            signingInput = Array(segments.signingInput)
            payload = try segments.decodedPayload()
        }
        self.header = header
    }

    /// Verifies the signature with `key` under `policy`.
    /// - Throws: ``JOSEError`` naming the first rule the token breaks; `.invalidSignature` when the signature is wrong.
    public func verify(with key: JWK, policy: JWSVerificationPolicy = .default) throws {
        try signature.withUnsafeBytes { signatureBytes in
            try signingInput.withUnsafeBytes { inputBytes in
                try JWSVerification.verify(header: header, signature: signatureBytes, input: inputBytes, key: key, policy: policy)
            }
        }
    }

    /// Verifies with the one key of `keys` that fits the token (by `kid`, or
    /// the single key admitting the algorithm) and returns that key.
    @discardableResult
    public func verify(with keys: JWKSet, policy: JWSVerificationPolicy = .default) throws -> JWK {
        let key = try keys.key(for: header, policy: policy)
        try verify(with: key, policy: policy)
        return key
    }
}

/// Header rules shared by the compact and JSON serializations.
enum JWSVerification {
    /// The header rules, the key's and the policy's choice of algorithm, then the signature.
    /// `protected` is the protected header of a JSON serialization; `nil` for a compact JWS.
    static func verify(
        header: JOSEHeader, protected: JSONObject? = nil, signature: UnsafeRawBufferPointer,
        input: UnsafeRawBufferPointer, key: JWK, policy: JWSVerificationPolicy
    ) throws {
        try check(header: header, protected: protected, key: key, policy: policy)
        let algorithm = try policy.algorithm(of: header, for: key)
        guard try SignatureVerifier.isValid(signature: signature, input: input, key: key, algorithm: algorithm) else {
            throw JOSEError(.invalidSignature, "the \(algorithm) signature does not verify with the \(key.keyType) key")
        }
    }

    /// `crit` and `b64` rules. `protected` is the protected header of a JSON
    /// serialization; `nil` for a compact JWS, whose header is all protected.
    private static func check(header: JOSEHeader, protected: JSONObject?, key: JWK, policy: JWSVerificationPolicy) throws {
        let protectedHasCritical = protected.map { $0["crit"] != nil } ?? header.hasCritical
        if protectedHasCritical || header.hasCritical {
            var understood = policy.understoodCriticalHeaders
            if policy.allowsUnencodedPayload { understood.insert("b64") }
            try header.checkCritical(protected: protected ?? header.members, understood: understood)
        }
        if header.b64 != nil {
            let protectedHasB64 = protected.map { $0["b64"] != nil } ?? true
            guard protectedHasB64, header.critical?.contains("b64") == true else {
                throw JOSEError(.invalidHeader, "\"b64\" must be in the protected header and listed in \"crit\" (RFC 7797 §6)", member: "b64")
            }
            if !header.base64EncodedPayload, !policy.allowsUnencodedPayload {
                throw JOSEError(.unsupportedCriticalHeader, "unencoded payloads (b64: false) are not enabled", member: "b64")
            }
        }
    }
}
