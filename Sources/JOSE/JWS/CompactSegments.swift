#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The three segments of a compact JWS located in the token's own bytes, with
/// the protected header decoded and checked: the part of parsing that
/// ``CompactJWS`` and the one-pass ``JWT`` verification share.
///
/// The buffers point into the token; a value must not outlive them.
struct CompactSegments {
    /// The protected header.
    let header: JOSEHeader
    /// `BASE64URL(header) '.' payload-segment`, as written in the token.
    let signingInput: UnsafeBufferPointer<UInt8>
    /// The payload segment, as written.
    let payload: UnsafeBufferPointer<UInt8>
    /// The signature segment, as written.
    let signature: UnsafeBufferPointer<UInt8>

    /// - Throws: ``JOSEError``: `.limitExceeded`, `.malformedToken`, `.invalidBase64URL`, `.invalidJSON`,
    ///   `.duplicateJSONMember`, `.invalidHeader`.
    init(_ bytes: UnsafeBufferPointer<UInt8>, limits: JOSELimits) throws {
        guard bytes.count <= limits.maxTokenBytes else {
            throw JOSEError(.limitExceeded, "token of \(bytes.count) bytes exceeds the limit of \(limits.maxTokenBytes)")
        }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw JOSEError(.malformedToken, "the token is empty") }
        var firstDot = -1, secondDot = -1, extraDot = false
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
        guard secondDot >= 0, !extraDot else {
            let found = extraDot ? "more than three" : String(firstDot < 0 ? 1 : 2)
            throw JOSEError(.malformedToken, "a compact JWS has exactly three dot-separated segments; found \(found)")
        }
        let headerSegment = UnsafeBufferPointer(rebasing: bytes[0..<firstDot])
        guard !headerSegment.isEmpty else { throw JOSEError(.malformedToken, "the header segment is empty") }

        // The same header bytes under the same limits parse to the same header: this thread's last one is reused.
        header = try HeaderCache.header(segment: headerSegment, limits: limits.tokenJSON) {
            try Self.parseHeader(headerSegment, limits: limits.tokenJSON)
        }
        guard header.algorithmName != nil else {
            throw JOSEError(.invalidHeader, "the protected header has no \"alg\"", member: "alg")
        }
        signingInput = UnsafeBufferPointer(rebasing: bytes[0..<secondDot])
        payload = UnsafeBufferPointer(rebasing: bytes[(firstDot + 1)..<secondDot])
        signature = UnsafeBufferPointer(rebasing: bytes[(secondDot + 1)...])
    }

    /// Decodes and parses the protected header segment, checking the registered members' types.
    private static func parseHeader(_ headerSegment: UnsafeBufferPointer<UInt8>, limits: JSONLimits) throws -> JOSEHeader {
        // The decoded header only lives long enough to be parsed: a stack buffer.
        let members: JSONObject
        do {
            members = try Base64URL.withDecoded(headerSegment) { decoded in
                try JSONParser.parseObject(
                    buffer: decoded.assumingMemoryBound(to: UInt8.self), limits: limits,
                    what: "the protected header")
            }
        } catch let error as JOSEError where error.code == .invalidBase64URL {
            throw JOSEError(.invalidBase64URL, "header segment: \(error.reason)")
        }
        return try JOSEHeader(members: members)
    }

    /// The payload: Base64URL-decoded, or verbatim for `b64: false`.
    func decodedPayload() throws -> [UInt8] {
        guard header.base64EncodedPayload else { return Array(payload) }
        do { return try Base64URL.decode(payload) } catch let error as JOSEError {
            throw JOSEError(.invalidBase64URL, "payload segment: \(error.reason)")
        }
    }

    /// Calls `body` with the decoded signature in a temporary buffer (on the
    /// stack for any real signature): nothing is copied or kept.
    @inline(__always)
    func withDecodedSignature(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var decoded = false
        do {
            try Base64URL.withDecoded(signature) { bytes in
                decoded = true
                try body(bytes)
            }
        } catch let error as JOSEError where !decoded {
            throw JOSEError(.invalidBase64URL, "signature segment: \(error.reason)")
        }
    }
}
