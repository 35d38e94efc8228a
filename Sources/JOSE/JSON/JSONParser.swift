#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Limits applied to untrusted JSON.
public struct JSONLimits: Sendable, Hashable {
    /// Deepest nesting of arrays and objects.
    public var maxDepth: Int
    /// Largest input, in bytes.
    public var maxBytes: Int

    /// Creates limits.
    public init(maxDepth: Int = 32, maxBytes: Int = 1 << 20) {
        self.maxDepth = maxDepth
        self.maxBytes = maxBytes
    }

    /// Defaults generous enough for real tokens and key sets.
    public static let `default` = JSONLimits()
}

/// A strict RFC 8259 parser: no duplicate member names, no trailing commas, no
/// comments, valid UTF-8 only, lone surrogates rejected, nesting and size bounded.
public enum JSONParser {
    /// Parses a complete JSON text.
    /// - Throws: ``JOSEError`` `.invalidJSON`, `.duplicateJSONMember` or `.limitExceeded`.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes, limits: JSONLimits = .default) throws -> JSONValue {
        if let array = bytes as? [UInt8] { return try parse(array, limits: limits) }
        return try parse(Array(bytes), limits: limits)
    }

    /// Parses a complete JSON text from an array (the fast, non-generic path).
    public static func parse(_ bytes: [UInt8], limits: JSONLimits = .default) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { try parse(buffer: $0, limits: limits) }
    }

    /// Parses a complete JSON text from a buffer.
    public static func parse(buffer: UnsafeBufferPointer<UInt8>, limits: JSONLimits = .default) throws -> JSONValue {
        if buffer.count > limits.maxBytes {
            throw JOSEError(.limitExceeded, "JSON text of \(buffer.count) bytes exceeds the limit of \(limits.maxBytes)")
        }
        var parser = Parser(buffer: buffer, maxDepth: limits.maxDepth)
        return try parser.parseDocument()
    }

    /// Parses a JSON text from a string.
    public static func parse(_ string: String, limits: JSONLimits = .default) throws -> JSONValue {
        try parse(Array(string.utf8), limits: limits)
    }

    /// Validates a JSON text that must be an object exactly as strictly as
    /// ``parse(_:limits:)`` does (grammar, UTF-8, duplicates at every level,
    /// depth), without building values, and returns where each top-level
    /// member's name and value lie in `buffer`.
    static func indexObject(buffer: UnsafeBufferPointer<UInt8>, limits: JSONLimits, what: String) throws -> JSONObjectIndex {
        if buffer.count > limits.maxBytes {
            throw JOSEError(.limitExceeded, "JSON text of \(buffer.count) bytes exceeds the limit of \(limits.maxBytes)")
        }
        var parser = Parser(buffer: buffer, maxDepth: limits.maxDepth)
        parser.materialize = false
        parser.skipWhitespace()
        guard parser.index < buffer.count, buffer[parser.index] == UInt8(ascii: "{") else {
            throw JOSEError(.invalidJSON, "\(what) is not a JSON object")
        }
        try parser.indexObject()
        parser.skipWhitespace()
        if parser.index != buffer.count { throw parser.fail("unexpected data after the JSON value") }
        return parser.rootIndex
    }

    /// Parses a JSON text that must be an object.
    public static func parseObject(_ bytes: [UInt8], limits: JSONLimits = .default, what: String) throws -> JSONObject {
        guard case .object(let object) = try parse(bytes, limits: limits) else {
            throw JOSEError(.invalidJSON, "\(what) is not a JSON object")
        }
        return object
    }
}

struct Parser {
    let buffer: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0
    var depth = 0
    /// When false, values are validated but not built (strings come back
    /// empty), and the root object's member ranges are recorded instead.
    var materialize = true
    var rootIndex = JSONObjectIndex()
    /// Whether the last string scanned contained an escape sequence.
    var lastStringHadEscape = false

    init(buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.buffer = buffer
        self.maxDepth = maxDepth
    }

    func fail(_ what: String) -> JOSEError {
        JOSEError(.invalidJSON, "\(what) at offset \(index)")
    }

    mutating func parseDocument() throws -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index != buffer.count { throw fail("unexpected data after the JSON value") }
        return value
    }

    @inline(__always) mutating func skipWhitespace() {
        while index < buffer.count {
            switch buffer[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws -> JSONValue {
        guard index < buffer.count else { throw fail("unexpected end of JSON text") }
        switch buffer[index] {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard buffer.count - index >= count else { throw fail("truncated literal") }
        let base = literal.utf8Start
        for offset in 0..<count where buffer[index + offset] != base[offset] {
            throw fail("invalid literal")
        }
        index += count
    }

    mutating func enter() throws {
        depth += 1
        if depth > maxDepth {
            throw JOSEError(.limitExceeded, "JSON nesting deeper than \(maxDepth) at offset \(index)")
        }
    }

    mutating func parseObject() throws -> JSONObject {
        if !materialize {
            try indexObject()
            return JSONObject()
        }
        try enter()
        index += 1
        var members: [JSONMember] = []
        members.reserveCapacity(8)
        skipWhitespace()
        if index < buffer.count, buffer[index] == UInt8(ascii: "}") {
            index += 1; depth -= 1
            return JSONObject(uniqueMembers: members)
        }
        while true {
            skipWhitespace()
            guard index < buffer.count, buffer[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let nameOffset = index
            let name = try parseName()
            // Duplicate check: UTF-8 length first (O(1) on native strings), full comparison only on equal lengths.
            let length = name.utf8.count
            for member in members where member.name.utf8.count == length && member.name == name {
                throw JOSEError(.duplicateJSONMember, "duplicate member name \"\(name.jsonSafePrefix)\" at offset \(nameOffset)", member: name)
            }
            skipWhitespace()
            guard index < buffer.count, buffer[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONMember(name: name, value: value))
            skipWhitespace()
            guard index < buffer.count else { throw fail("unterminated object") }
            if buffer[index] == UInt8(ascii: ",") { index += 1; continue }
            if buffer[index] == UInt8(ascii: "}") { index += 1; break }
            throw fail("expected ',' or '}'")
        }
        depth -= 1
        return JSONObject(uniqueMembers: members)
    }

    mutating func parseArray() throws -> [JSONValue] {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < buffer.count, buffer[index] == UInt8(ascii: "]") {
            index += 1; depth -= 1
            return elements
        }
        while true {
            skipWhitespace()
            let element = try parseValue()
            if materialize { elements.append(element) }
            skipWhitespace()
            guard index < buffer.count else { throw fail("unterminated array") }
            if buffer[index] == UInt8(ascii: ",") { index += 1; continue }
            if buffer[index] == UInt8(ascii: "]") { index += 1; break }
            throw fail("expected ',' or ']'")
        }
        depth -= 1
        return elements
    }

    /// A member name: a known JOSE/JWT name is returned as a shared constant.
    mutating func parseName() throws -> String {
        if let base = buffer.baseAddress {
            let start = index + 1
            var i = start
            let limit = min(buffer.count, start + 17)
            // Stop at control characters too: they are invalid unescaped (parseString rejects them),
            // and KnownNames packs names with zero padding, so "d\0" would otherwise match "d".
            while i < limit, base[i] != UInt8(ascii: "\""), base[i] != UInt8(ascii: "\\"), base[i] >= 0x20 { i += 1 }
            if i < limit, base[i] == UInt8(ascii: "\""), let known = KnownNames.name(base + start, count: i - start) {
                index = i + 1
                return known
            }
        }
        return try parseString()
    }

    /// Scans the unescaped run of a string from `start` (just past the opening
    /// quote) up to the first '"', '\\', control byte or the end of the text,
    /// and tells whether every byte before that point is ASCII.
    @inline(__always) func scanPlainRun(from start: Int) -> (stop: Int, isASCII: Bool) {
        guard let base = buffer.baseAddress else { return (start, true) }
        let end = buffer.count
        var i = start
        var isASCII = true
        // Eight bytes at a time while none of them is '"', '\\', a control
        // character or (for the ASCII flag) a byte >= 0x80: "has a zero byte"
        // tests on the word, exact for whether such a byte exists.
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        while i + 8 <= end {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            let quote = word ^ 0x2222_2222_2222_2222, backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                | ((word &- 0x2020_2020_2020_2020) & ~word)
            let flagged = special & highs
            if flagged != 0 {
                // A borrow can only flag bytes above a truly special one, so the
                // lowest flagged byte is the first special byte (little-endian load).
                let offset = flagged.trailingZeroBitCount >> 3
                let before: UInt64 = offset == 0 ? 0 : UInt64.max >> UInt64(64 - 8 * offset)
                if word & highs & before != 0 { isASCII = false }
                return (i + offset, isASCII)
            }
            if word & highs != 0 { isASCII = false }
            i += 8
        }
        // Bytes 0x5D...0xFF (lower-case letters, most punctuation) need one compare.
        while i < end {
            let byte = base[i]
            if byte >= 0x5D {
                if byte >= 0x80 { isASCII = false }
                i += 1
                continue
            }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            i += 1
        }
        return (i, isASCII)
    }

    mutating func parseString() throws -> String {
        lastStringHadEscape = false
        let start = index + 1
        let (stop, isASCII) = scanPlainRun(from: start)
        index = stop
        if stop < buffer.count {
            let byte = buffer[stop]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: buffer[start..<stop])
                index = stop + 1
                if isASCII { return materialize ? String(decoding: slice, as: UTF8.self) : "" }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw JOSEError(.invalidJSON, "string at offset \(start) is not valid UTF-8")
                }
                return string
            }
            if byte < 0x20 { throw fail("unescaped control character in string") }
        }
        guard index < buffer.count else { throw fail("unterminated string") }
        lastStringHadEscape = true
        var bytes = Array(UnsafeBufferPointer(rebasing: buffer[start..<index]))
        while index < buffer.count {
            let byte = buffer[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                guard let string = String(validating: bytes, as: UTF8.self) else {
                    throw JOSEError(.invalidJSON, "string at offset \(start) is not valid UTF-8")
                }
                return string
            }
            if byte < 0x20 { throw fail("unescaped control character in string") }
            if byte != UInt8(ascii: "\\") { bytes.append(byte); index += 1; continue }
            index += 1
            guard index < buffer.count else { throw fail("unterminated escape") }
            let escape = buffer[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): bytes.append(0x22)
            case UInt8(ascii: "\\"): bytes.append(0x5C)
            case UInt8(ascii: "/"): bytes.append(0x2F)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard buffer.count - index >= 6, buffer[index] == UInt8(ascii: "\\"), buffer[index + 1] == UInt8(ascii: "u") else {
                        throw fail("lone high surrogate in string")
                    }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("invalid surrogate pair in string") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("lone low surrogate in string")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid unicode escape") }
                bytes.append(contentsOf: Array(String(Character(unicode)).utf8))
            default:
                throw fail("invalid escape sequence")
            }
        }
        throw fail("unterminated string")
    }

    mutating func parseHex4() throws -> UInt32 {
        guard buffer.count - index >= 4 else { throw fail("truncated unicode escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = buffer[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("invalid hex digit in unicode escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws -> JSONValue {
        let (start, isInteger) = try scanNumber()
        return try convertNumber(from: start, isInteger: isInteger)
    }

    /// Checks the number grammar from `index`, leaving `index` after the number;
    /// returns where it started and whether it has neither fraction nor exponent.
    mutating func scanNumber() throws -> (start: Int, isInteger: Bool) {
        let start = index
        var isInteger = true
        if buffer[index] == UInt8(ascii: "-") { index += 1 }
        guard index < buffer.count else { throw fail("truncated number") }
        if buffer[index] == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(buffer[index]) {
            while index < buffer.count, isDigit(buffer[index]) { index += 1 }
        } else {
            throw fail("invalid number")
        }
        if index < buffer.count, buffer[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < buffer.count, isDigit(buffer[index]) else { throw fail("invalid fraction in number") }
            while index < buffer.count, isDigit(buffer[index]) { index += 1 }
        }
        if index < buffer.count, buffer[index] == UInt8(ascii: "e") || buffer[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < buffer.count, buffer[index] == UInt8(ascii: "+") || buffer[index] == UInt8(ascii: "-") { index += 1 }
            guard index < buffer.count, isDigit(buffer[index]) else { throw fail("invalid exponent in number") }
            while index < buffer.count, isDigit(buffer[index]) { index += 1 }
        }
        return (start, isInteger)
    }

    /// The value of the number scanned from `start` to `index`.
    func convertNumber(from start: Int, isInteger: Bool) throws -> JSONValue {
        if isInteger, index - start <= 18 {
            // At most 18 digits cannot overflow Int64.
            var value: Int64 = 0
            var position = start
            let negative = buffer[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            while position < index { value = value * 10 + Int64(buffer[position] &- UInt8(ascii: "0")); position += 1 }
            return .integer(negative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<index]), as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else {
            throw JOSEError(.invalidJSON, "number at offset \(start) is out of range")
        }
        return .double(double)
    }

    @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
}

extension String {
    /// A short, printable prefix for error messages (member names only, never values).
    var jsonSafePrefix: String {
        let cleaned = unicodeScalars.prefix(40).map { $0.value < 0x20 || $0 == "\"" ? "?" : String($0) }.joined()
        return unicodeScalars.count > 40 ? cleaned + "…" : cleaned
    }
}
