/// Strict percent-encoding for query strings, fragments and form bodies.
///
/// Encoding keeps only the RFC 3986 unreserved characters (`A–Z a–z 0–9 - . _ ~`)
/// and escapes everything else as UTF-8 `%XX` (upper-case hex): a space is `%20`,
/// and `+`, `&`, `=`, `#`, `/`, `?`, braces and quotes are always escaped.
///
/// Decoding follows `application/x-www-form-urlencoded` (RFC 6749 Appendix B):
/// `+` is a space and `%XX` a byte; the bytes must be valid UTF-8.
package enum FormURLEncoding {
    /// `value` with every byte outside the unreserved set percent-encoded.
    package static func encode(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            if isUnreserved(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%"
                out.unicodeScalars.append(hexDigit(byte >> 4))
                out.unicodeScalars.append(hexDigit(byte & 0x0F))
            }
        }
        return out
    }

    /// `name=value` pairs, each side encoded with ``encode(_:)``, joined by `&`.
    package static func encode(_ parameters: [(name: String, value: String)]) -> String {
        parameters.map { encode($0.name) + "=" + encode($0.value) }.joined(separator: "&")
    }

    /// Decodes percent-escapes (and, when `plusAsSpace`, `+` as a space).
    /// - Throws: ``OIDCError`` `.invalidPercentEncoding` for a malformed escape or invalid UTF-8.
    ///   The message never quotes the text (it may be a secret).
    package static func decode(_ text: some StringProtocol, plusAsSpace: Bool = true) throws -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        var offset = 0
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw OIDCError(.invalidPercentEncoding, "malformed percent-escape at offset \(offset)")
                }
                bytes.append(high << 4 | low)
                offset += 3
                continue
            case UInt8(ascii: "+") where plusAsSpace:
                bytes.append(0x20)
            default:
                bytes.append(byte)
            }
            offset += 1
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw OIDCError(.invalidPercentEncoding, "percent-decoded bytes are not valid UTF-8")
        }
        return string
    }

    /// Splits `a=1&b=2` into decoded pairs, in order, keeping duplicates (callers decide).
    /// Empty segments (`a=1&&b=2`, a trailing `&`) are skipped; a segment without `=` is a name with an empty value.
    /// - Throws: ``OIDCError`` `.invalidPercentEncoding`, naming the parameter when its name decodes.
    package static func parse(_ text: some StringProtocol, plusAsSpace: Bool = true) throws -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        let text = Substring(text)
        for segment in text.split(separator: "&", omittingEmptySubsequences: true) {
            let name: String
            let rawValue: Substring
            if let equals = segment.firstIndex(of: "=") {
                name = try decode(segment[..<equals], plusAsSpace: plusAsSpace)
                rawValue = segment[segment.index(after: equals)...]
            } else {
                name = try decode(segment, plusAsSpace: plusAsSpace)
                rawValue = ""
            }
            do {
                result.append((name, try decode(rawValue, plusAsSpace: plusAsSpace)))
            } catch let error as OIDCError {
                throw OIDCError(error.code, "parameter '\(name.prefix(64))': \(error.reason)")
            }
        }
        return result
    }

    /// RFC 3986 §2.3 unreserved characters (also used by DPoP `htu` normalization).
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10)
    }

    /// The value of one hexadecimal digit (either case), or `nil`.
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
