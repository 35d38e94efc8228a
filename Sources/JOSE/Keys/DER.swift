/// A strict DER (X.690 §10) reader over a slice of bytes.
///
/// It accepts only what DER allows: low tag numbers, definite lengths in their
/// shortest form, each element inside its parent. Every read moves forward, and
/// the key structures that use it are fixed and shallow (no recursion), so the
/// work is bounded by the input size. Structural errors are `.invalidPEM`;
/// their text names the element and its offset, never its contents.
struct DERReader {
    /// What is left to read; indices are offsets into the whole DER input.
    private(set) var remaining: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { remaining = bytes }

    /// One element: its tag, its contents, and where it started.
    struct Element {
        let tag: UInt8
        let contents: ArraySlice<UInt8>
        let offset: Int
    }

    var isAtEnd: Bool { remaining.isEmpty }

    /// The next element's tag, without reading it.
    var nextTag: UInt8? { remaining.first }

    /// Reads the next element, whatever its tag.
    mutating func read(_ what: @autoclosure () -> String) throws -> Element {
        let start = remaining.startIndex, end = remaining.endIndex
        guard start < end else { throw DER.malformed("\(what()) is missing: the data ends", at: start) }
        let tag = remaining[start]
        guard tag & 0x1F != 0x1F else { throw DER.malformed("\(what()) has a high tag number, which no key structure uses", at: start) }
        guard start + 1 < end else { throw DER.malformed("\(what()) is cut off after its tag", at: start) }
        let first = remaining[start + 1]
        var index = start + 2
        var length = Int(first)
        if first == 0x80 {
            throw DER.malformed("\(what()) has an indefinite length (BER, not DER)", at: start)
        } else if first > 0x80 {
            let count = Int(first & 0x7F)
            guard count <= 4 else { throw DER.malformed("\(what()) has a \(count)-byte length", at: start) }
            guard end - index >= count else { throw DER.malformed("\(what()) is cut off in its length", at: start) }
            guard remaining[index] != 0 else { throw DER.malformed("\(what()) has a length with a leading zero byte (not minimal)", at: start) }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(remaining[index])
                index += 1
            }
            guard length >= 0x80 else { throw DER.malformed("\(what()) has a long-form length below 128 (not minimal)", at: start) }
        }
        guard length <= end - index else {
            throw DER.malformed("\(what()) has a length of \(length) bytes, past the end of its enclosing element", at: start)
        }
        let contents = remaining[index..<index + length]
        remaining = remaining[(index + length)...]
        return Element(tag: tag, contents: contents, offset: start)
    }

    /// Reads the next element, which must have `tag`, and returns its contents.
    mutating func read(_ tag: UInt8, _ what: @autoclosure () -> String) throws -> ArraySlice<UInt8> {
        let element = try read(what())
        guard element.tag == tag else {
            throw DER.malformed("\(what()) has the wrong tag (\(DER.hex(element.tag)), expected \(DER.hex(tag)))", at: element.offset)
        }
        return element.contents
    }

    /// Reads the next element's contents if its tag is `tag`; `nil` (reading nothing) otherwise.
    mutating func readIfPresent(_ tag: UInt8, _ what: @autoclosure () -> String) throws -> ArraySlice<UInt8>? {
        guard nextTag == tag else { return nil }
        return try read(tag, what())
    }

    /// Requires that nothing is left: `what` names the structure being closed.
    func expectEnd(_ what: @autoclosure () -> String) throws {
        guard isAtEnd else { throw DER.malformed("unexpected bytes after the last field of \(what())", at: remaining.startIndex) }
    }
}

/// DER tags, content checks and errors used by the key structures.
enum DER {
    static let integer: UInt8 = 0x02
    static let bitString: UInt8 = 0x03
    static let octetString: UInt8 = 0x04
    static let null: UInt8 = 0x05
    static let objectIdentifier: UInt8 = 0x06
    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31
    /// `[n]` constructed (EXPLICIT, or IMPLICIT of a constructed type).
    static func contextConstructed(_ number: UInt8) -> UInt8 { 0xA0 | number }
    /// `[n]` primitive (IMPLICIT of a primitive type).
    static func contextPrimitive(_ number: UInt8) -> UInt8 { 0x80 | number }

    static func malformed(_ what: String, at offset: Int) -> JOSEError {
        JOSEError(.invalidPEM, "DER: \(what) (offset \(offset))")
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return "0x" + String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
    }

    /// Checks that INTEGER contents are minimally encoded (X.690 §8.3.2) and returns them.
    static func integer(_ contents: ArraySlice<UInt8>, _ what: @autoclosure () -> String) throws -> ArraySlice<UInt8> {
        guard let first = contents.first else { throw malformed("\(what()) is an empty INTEGER", at: contents.startIndex) }
        if contents.count > 1 {
            let second = contents[contents.startIndex + 1]
            if (first == 0x00 && second < 0x80) || (first == 0xFF && second >= 0x80) {
                throw malformed("\(what()) is an INTEGER with a redundant leading byte (not minimal)", at: contents.startIndex)
            }
        }
        return contents
    }

    /// The magnitude of a positive INTEGER (its leading 0x00 sign byte removed).
    /// A negative or zero value is an invalid key.
    static func positiveInteger(_ contents: ArraySlice<UInt8>, _ what: @autoclosure () -> String) throws -> [UInt8] {
        let value = try integer(contents, what())
        guard let first = value.first, first < 0x80 else { throw JOSEError(.invalidKey, "\(what()) is negative") }
        let magnitude = value.drop(while: { $0 == 0 })
        guard !magnitude.isEmpty else { throw JOSEError(.invalidKey, "\(what()) is zero") }
        return Array(magnitude)
    }

    /// A version number: a non-negative INTEGER below 128, or `nil` for any other value.
    static func smallInteger(_ contents: ArraySlice<UInt8>, _ what: @autoclosure () -> String) throws -> Int? {
        let value = try integer(contents, what())
        guard value.count == 1, let byte = value.first, byte < 0x80 else { return nil }
        return Int(byte)
    }

    /// The bytes of a BIT STRING holding a key: whole bytes only (no unused bits).
    static func keyBits(_ contents: ArraySlice<UInt8>, _ what: @autoclosure () -> String) throws -> ArraySlice<UInt8> {
        guard let unused = contents.first else { throw malformed("\(what()) is a BIT STRING without its unused-bits byte", at: contents.startIndex) }
        guard unused == 0 else { throw JOSEError(.invalidKey, "\(what()) is a BIT STRING with \(unused) unused bits; a key is whole bytes") }
        return contents.dropFirst()
    }

    /// Requires NULL contents to be empty.
    static func null(_ contents: ArraySlice<UInt8>, _ what: @autoclosure () -> String) throws {
        guard contents.isEmpty else { throw malformed("\(what()) is a NULL with contents", at: contents.startIndex) }
    }

    /// An OBJECT IDENTIFIER in dotted form, for error messages (at most 32 bytes of it are shown).
    static func dotted(_ contents: ArraySlice<UInt8>) -> String {
        var arcs: [String] = []
        var value = 0
        for byte in contents.prefix(32) {
            value = value << 7 | Int(byte & 0x7F)
            guard byte & 0x80 == 0 else {
                if value > 1 << 40 { return "(an over-long OID)" }
                continue
            }
            if arcs.isEmpty {
                let first = min(value / 40, 2)
                arcs += [String(first), String(value - first * 40)]
            } else {
                arcs.append(String(value))
            }
            value = 0
        }
        return arcs.isEmpty ? "(an empty OID)" : arcs.joined(separator: ".") + (contents.count > 32 ? "…" : "")
    }
}
