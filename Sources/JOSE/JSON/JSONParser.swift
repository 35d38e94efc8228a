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
package enum JSONParser {
    /// Parses a complete JSON text.
    /// - Throws: ``JOSEError`` `.invalidJSON`, `.duplicateJSONMember` or `.limitExceeded`.
    package static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes, limits: JSONLimits = .default) throws -> JSONValue {
        if let array = bytes as? [UInt8] { return try parse(array, limits: limits) }
        return try parse(Array(bytes), limits: limits)
    }

    /// Parses a complete JSON text from an array (the fast, non-generic path).
    package static func parse(_ bytes: [UInt8], limits: JSONLimits = .default) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { try parse(buffer: $0, limits: limits) }
    }

    /// Parses a complete JSON text from a buffer.
    package static func parse(buffer: UnsafeBufferPointer<UInt8>, limits: JSONLimits = .default) throws -> JSONValue {
        if buffer.count > limits.maxBytes {
            throw JOSEError(.limitExceeded, "JSON text of \(buffer.count) bytes exceeds the limit of \(limits.maxBytes)")
        }
        var parser = Parser(buffer: buffer, maxDepth: limits.maxDepth)
        return try parser.parseDocument()
    }

    /// Parses a JSON text from a string.
    package static func parse(_ string: String, limits: JSONLimits = .default) throws -> JSONValue {
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
    package static func parseObject(_ bytes: [UInt8], limits: JSONLimits = .default, what: String) throws -> JSONObject {
        try bytes.withUnsafeBufferPointer { try parseObject(buffer: $0, limits: limits, what: what) }
    }

    /// Parses a JSON text in a buffer that must be an object.
    static func parseObject(buffer: UnsafeBufferPointer<UInt8>, limits: JSONLimits, what: String) throws -> JSONObject {
        guard case .object(let object) = try parse(buffer: buffer, limits: limits) else {
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

    /// The grammar arrays and objects share, from the opening byte at `index`:
    /// depth, separators, the closing byte and their errors. `reader` reads one
    /// element (for an object, one member from its name to its value). A generic
    /// reader rather than a closure: it is specialized and inlined per caller,
    /// which the index mode's hot loop needs.
    @inline(__always)
    mutating func forEachElement<Reader: ElementReader>(closing: UInt8, what: StaticString, _ reader: inout Reader) throws {
        try enter()
        index += 1
        skipWhitespace()
        if index < buffer.count, buffer[index] == closing {
            index += 1; depth -= 1
            return
        }
        while true {
            skipWhitespace()
            try reader.read(&self)
            skipWhitespace()
            guard index < buffer.count else { throw fail("unterminated \(what)") }
            if buffer[index] == UInt8(ascii: ",") { index += 1; continue }
            if buffer[index] == closing { index += 1; break }
            throw fail("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
        }
        depth -= 1
    }

    /// At a member: checks for the opening quote of its name and returns its offset.
    @inline(__always) func expectMemberName() throws -> Int {
        guard index < buffer.count, buffer[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
        return index
    }

    /// After a member name: optional whitespace, ':' and optional whitespace.
    @inline(__always) mutating func expectNameSeparator() throws {
        skipWhitespace()
        guard index < buffer.count, buffer[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
        index += 1
        skipWhitespace()
    }

    mutating func parseObject() throws -> JSONObject {
        var reader = MemberBuilder()
        try forEachElement(closing: UInt8(ascii: "}"), what: "object", &reader)
        return JSONObject(uniqueMembers: reader.members)
    }

    mutating func parseArray() throws -> [JSONValue] {
        var reader = ElementBuilder()
        try forEachElement(closing: UInt8(ascii: "]"), what: "array", &reader)
        return reader.elements
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
