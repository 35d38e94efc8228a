import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `htu` comparison rule of RFC 9449 §4.3 step 9: both sides compared after RFC 3986 §6.2.2
/// syntax-based normalization and §6.2.3 scheme-based normalization, query and fragment ignored.
extension DPoPProofValidator {
    /// `uri` normalized as ``normalizedURI(_:)-(String)`` does.
    package static func normalizedURI(_ uri: URL) -> String? {
        normalizedURI(uri.absoluteString)
    }

    /// The one normalization `htu` and the request URI are compared after (RFC 9449 §4.3 step 9):
    /// query, fragment and user info dropped; scheme and host lower-cased (RFC 3986 §6.2.2.1);
    /// percent-encoded unreserved characters decoded and the other percent-encodings' hex digits
    /// upper-cased (§6.2.2.2); dot segments removed (§6.2.2.3, §5.2.4); the default port (80 for
    /// http, 443 for https) and an empty port dropped and an empty path written `/` (§6.2.3).
    /// - Returns: the normalized URI, or `nil` unless `text` is an absolute http(s) URI with a host
    ///   made of printable ASCII with well-formed percent-encodings.
    package static func normalizedURI(_ text: String) -> String? {
        alreadyNormalized(text) ?? normalizedBySteps(text)
    }

    /// `text` up to its query or fragment when the normalization would leave it unchanged (the common
    /// case: a lower-case `http(s)` scheme and host, no user info, port, percent-encoding or `/.`, and a
    /// path); `nil` when it might change it (then ``normalizedBySteps(_:)`` decides). One pass, no allocation
    /// but the result.
    static func alreadyNormalized(_ text: String) -> String? {
        let end: Int? =
            text.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
                guard let base = bytes.baseAddress else { return nil }
                var index: Int
                if bytes.count > 8, memcmp(base, "https://", 8) == 0 {
                    index = 8
                } else if bytes.count > 7, memcmp(base, "http://", 7) == 0 {
                    index = 7
                } else {
                    return nil
                }
                let hostStart = index
                // The host: lower-case letters, digits, '-', '.' and '_' only (no '@', ':', '[', '%' or upper case).
                while index < bytes.count, bytes[index] != UInt8(ascii: "/") {
                    let byte = bytes[index]
                    guard
                        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                    else { return nil }
                    index += 1
                }
                guard index > hostStart, index < bytes.count else { return nil }  // a host, then a path
                // The path, up to a query or fragment: printable ASCII without '%' and without a "/." (a possible dot segment).
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
                    guard byte >= 0x21, byte <= 0x7E, byte != UInt8(ascii: "%") else { return nil }
                    if byte == UInt8(ascii: "."), bytes[index - 1] == UInt8(ascii: "/") { return nil }
                    index += 1
                }
                return index
            } ?? nil
        guard let end else { return nil }
        return end == text.utf8.count ? text : String(decoding: text.utf8.prefix(end), as: UTF8.self)
    }

    /// The normalization step by step (``normalizedURI(_:)-(String)``).
    static func normalizedBySteps(_ text: String) -> String? {
        var bytes = Array(text.utf8)
        if let end = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { bytes.removeSubrange(end...) }
        guard bytes.allSatisfy({ (0x21...0x7E).contains($0) }), let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = String(decoding: bytes[..<colon].map(lowercased), as: UTF8.self)
        guard scheme == "https" || scheme == "http" else { return nil }
        var rest = bytes[(colon + 1)...]
        guard rest.starts(with: "//".utf8) else { return nil }
        rest = rest.dropFirst(2)
        let pathStart = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
        var authority = rest[..<pathStart]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        // host [ ":" port ]; an IP-literal is bracketed (RFC 3986 §3.2.2).
        var host = authority
        var port: ArraySlice<UInt8> = []
        let hostEnd = authority.first == UInt8(ascii: "[") ? authority.firstIndex(of: UInt8(ascii: "]")).map { $0 + 1 } : authority.startIndex
        guard let hostEnd else { return nil }
        if let portColon = authority[hostEnd...].lastIndex(of: UInt8(ascii: ":")) {
            host = authority[..<portColon]
            port = authority[(portColon + 1)...]
        }
        guard !host.isEmpty, let normalizedHost = percentNormalized(host, lowercasing: true),
            port.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), port.count <= 5
        else { return nil }
        var result = scheme + "://" + normalizedHost
        if !port.isEmpty {
            guard let number = Int(String(decoding: port, as: UTF8.self)), number <= 65_535 else { return nil }
            if number != (scheme == "https" ? 443 : 80) { result += ":\(number)" }
        }
        guard let path = percentNormalized(rest[pathStart...], lowercasing: false) else { return nil }
        let withoutDots = removingDotSegments(path)
        return result + (withoutDots.isEmpty ? "/" : withoutDots)
    }

    /// RFC 3986 §6.2.2.2: `%XX` of an unreserved character decoded, any other `%XX` with upper-case
    /// hex; `nil` for a `%` not followed by two hex digits.
    private static func percentNormalized(_ bytes: ArraySlice<UInt8>, lowercasing: Bool) -> String? {
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || (lowercasing && (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)) }) {
            return String(decoding: bytes, as: UTF8.self)  // nothing to change (the common case)
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") else {
                output.append(lowercasing ? lowercased(byte) : byte)
                index += 1
                continue
            }
            guard index + 2 < bytes.endIndex, let high = FormURLEncoding.hexValue(bytes[index + 1]), let low = FormURLEncoding.hexValue(bytes[index + 2]) else {
                return nil
            }
            let decoded = high << 4 | low
            if FormURLEncoding.isUnreserved(decoded) {
                output.append(lowercasing ? lowercased(decoded) : decoded)
            } else {
                output += [UInt8(ascii: "%"), hexDigit(high), hexDigit(low)]
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3986 §5.2.4 `remove_dot_segments`.
    private static func removingDotSegments(_ path: String) -> String {
        let bytes = path.utf8
        var previous = UInt8(ascii: "/")
        // A dot segment starts with "." at the start of the path or after "/": none, nothing to remove.
        guard
            bytes.contains(where: { byte in
                defer { previous = byte }
                return byte == UInt8(ascii: ".") && previous == UInt8(ascii: "/")
            })
        else { return path }
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                _ = output.popLast()
            } else if input == "/.." {
                input = "/"
                _ = output.popLast()
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let searchStart = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[searchStart...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
