#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An SD-JWT or SD-JWT+KB in compact form (RFC 9901 §4), split into its parts but not verified:
/// `<issuer-signed JWT>~<disclosure>~...~[<KB-JWT>]`.
public struct SDJWT: Sendable, Hashable {
    /// The issuer-signed JWT, as received.
    public let issuerSignedJWT: String
    /// The disclosures' encoded texts, in order.
    public let disclosures: [String]
    /// The Key Binding JWT, when the presentation ends with one.
    public let keyBindingJWT: String?

    /// Splits a compact SD-JWT: a non-empty JWS, then `~`-terminated non-empty disclosures, then an optional KB-JWT.
    /// - Throws: ``JOSEError`` `.malformedToken` (no `~`, an empty part, a KB-JWT that is not a compact JWS),
    ///   `.limitExceeded` beyond `limits.maxTokenBytes`.
    public init(_ compact: String, limits: JOSELimits = .default) throws {
        guard compact.utf8.count <= limits.maxTokenBytes else {
            throw JOSEError(.limitExceeded, "the SD-JWT is larger than \(limits.maxTokenBytes) bytes")
        }
        // Split on the bytes: `~` and `.` are ASCII, so every cut falls on a character boundary (a split by
        // Character would run grapheme breaking over the whole presentation).
        var text = compact
        let parts = text.withUTF8 { SDJWT.split($0) }
        guard parts.count >= 2 else { throw JOSEError(.malformedToken, "an SD-JWT has at least one \"~\" after the issuer-signed JWT") }
        guard !parts[0].text.isEmpty, parts[0].dots == 2 else {
            throw JOSEError(.malformedToken, "the issuer-signed JWT of an SD-JWT must be a compact JWS")
        }
        let middle = parts[1..<(parts.count - 1)]
        guard !middle.contains(where: \.text.isEmpty) else { throw JOSEError(.malformedToken, "an SD-JWT has an empty disclosure (\"~~\")") }
        let last = parts[parts.count - 1]
        if last.text.isEmpty {
            keyBindingJWT = nil
        } else {
            guard last.dots == 2 else {
                throw JOSEError(.malformedToken, "the part after the last \"~\" must be a KB-JWT (a compact JWS)")
            }
            keyBindingJWT = last.text
        }
        issuerSignedJWT = parts[0].text
        disclosures = middle.map(\.text)
    }

    /// The `~`-separated parts of a compact SD-JWT's bytes (empty parts kept), each with the number of `.` it holds.
    /// The separators are found with `memchr` (the presentation is not walked byte by byte in Swift).
    static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> [(text: String, dots: Int)] {
        var parts: [(text: String, dots: Int)] = []
        guard let base = bytes.baseAddress else { return [("", 0)] }
        func part(_ start: Int, _ end: Int) -> (text: String, dots: Int) {
            var dots = 0
            var position = start
            while position < end, let found = memchr(base + position, Int32(UInt8(ascii: ".")), end - position) {
                dots += 1
                position = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
            }
            return (String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self), dots)
        }
        var start = 0
        while start < bytes.count, let found = memchr(base + start, Int32(UInt8(ascii: "~")), bytes.count - start) {
            let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            parts.append(part(start, end))
            start = end + 1
        }
        parts.append(part(start, bytes.count))
        return parts
    }

    /// An SD-JWT from its parts.
    public init(issuerSignedJWT: String, disclosures: [String], keyBindingJWT: String? = nil) {
        self.issuerSignedJWT = issuerSignedJWT
        self.disclosures = disclosures
        self.keyBindingJWT = keyBindingJWT
    }

    /// The presentation without its KB-JWT, up to and including the last `~`: what `sd_hash` is taken over.
    public var withoutKeyBinding: String {
        var text = ""
        text.reserveCapacity(disclosures.reduce(issuerSignedJWT.utf8.count + 1) { $0 + $1.utf8.count + 1 })
        text += issuerSignedJWT
        text += "~"
        for disclosure in disclosures {
            text += disclosure
            text += "~"
        }
        return text
    }

    /// The compact form.
    public var compact: String { withoutKeyBinding + (keyBindingJWT ?? "") }
}
