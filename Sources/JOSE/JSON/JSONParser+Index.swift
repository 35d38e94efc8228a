// The parser's index mode: full validation, no values built, root members located.
extension Parser {
    /// Index mode: validates an object, detecting duplicate names by their raw
    /// bytes (decoding only names that contain escapes), and records where the
    /// root object's members lie.
    mutating func indexObject() throws {
        let isRoot = depth == 0
        var reader = MemberIndexer(isRoot: isRoot)
        try forEachElement(closing: UInt8(ascii: "}"), what: "object", &reader)
        if isRoot { rootIndex = reader.object }
    }

    /// Index mode: validates one value exactly as ``parseValue()`` would, without building it.
    mutating func skipValue() throws {
        guard index < buffer.count else { throw fail("unexpected end of JSON text") }
        switch buffer[index] {
        case UInt8(ascii: "{"): try indexObject()
        case UInt8(ascii: "["): try skipArray()
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let (start, isInteger) = try scanNumber()
            // Up to 18 digits always fit; anything else gets the full range check.
            if !isInteger || index - start > 18 { _ = try convertNumber(from: start, isInteger: isInteger) }
        default: throw fail("unexpected character")
        }
    }

    /// Index mode: validates an array without building it.
    mutating func skipArray() throws {
        var reader = ElementSkipper()
        try forEachElement(closing: UInt8(ascii: "]"), what: "array", &reader)
    }

    /// Index mode: validates a string without building it; sets ``lastStringHadEscape``.
    /// Plain ASCII strings are checked in one scan; anything else takes the full path.
    @inline(__always) mutating func skipString() throws {
        let start = index + 1
        let (stop, isASCII) = scanPlainRun(from: start)
        if isASCII, stop < buffer.count, buffer[stop] == UInt8(ascii: "\"") {
            lastStringHadEscape = false
            index = stop + 1
            return
        }
        _ = try parseString()
    }
}

/// Index mode: records where each member lies and refuses duplicate names,
/// compared by raw bytes (names with escapes are decoded and compared decoded).
struct MemberIndexer: ElementReader {
    var object = JSONObjectIndex()
    /// One bit per (length, first byte, last byte) fingerprint of the raw names seen:
    /// equal raw names have equal fingerprints, so a clear bit rules out a duplicate.
    /// 256 bits: with 64, a 17-claim ID Token had about two false alarms per token,
    /// each comparing the name with every member before it.
    private var fingerprints: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init(isRoot: Bool) {
        object.members.reserveCapacity(isRoot ? 24 : 4)
    }

    /// Sets the fingerprint's bit; returns whether it was already set.
    @inline(__always) private mutating func markFingerprint(length: Int, first: Int, last: Int) -> Bool {
        let key = UInt32(truncatingIfNeeded: length) | UInt32(truncatingIfNeeded: first) << 8 | UInt32(truncatingIfNeeded: last) << 16
        let slot = (key &* 0x9E37_79B1) >> 24  // multiplicative hashing: the top 8 bits mix all three
        let bit = UInt64(1) << UInt64(slot & 63)
        let seen: Bool
        switch slot >> 6 {
        case 0: seen = fingerprints.0 & bit != 0; fingerprints.0 |= bit
        case 1: seen = fingerprints.1 & bit != 0; fingerprints.1 |= bit
        case 2: seen = fingerprints.2 & bit != 0; fingerprints.2 |= bit
        default: seen = fingerprints.3 & bit != 0; fingerprints.3 |= bit
        }
        return seen
    }

    @inline(__always) mutating func read(_ parser: inout Parser) throws {
        let nameOffset = try parser.expectMemberName()
        try parser.skipString()
        let rawStart = nameOffset + 1, rawLength = parser.index - nameOffset - 2
        var entry = JSONMemberRange(nameStart: rawStart, nameLength: rawLength, decodedSlot: -1, valueStart: 0, valueEnd: 0)
        if parser.lastStringHadEscape {
            let resume = parser.index
            parser.index = nameOffset
            parser.materialize = true
            let decoded = try parser.parseString()
            parser.materialize = false
            parser.index = resume
            entry.decodedSlot = object.decodedNames.count
            object.decodedNames.append(decoded)
        }
        var mustCompare = entry.decodedSlot >= 0 || !object.decodedNames.isEmpty
        if !mustCompare {
            let first = rawLength > 0 ? Int(parser.buffer[rawStart]) : 0
            let last = rawLength > 0 ? Int(parser.buffer[rawStart + rawLength - 1]) : 0
            mustCompare = markFingerprint(length: rawLength, first: first, last: last)
        }
        if mustCompare {
            for other in object.members where object.sameName(other, entry, in: parser.buffer) {
                let name = object.name(of: entry, in: parser.buffer)
                throw JOSEError(.duplicateJSONMember, "duplicate member name \"\(name.jsonSafePrefix)\" at offset \(nameOffset)", member: name)
            }
        }
        try parser.expectNameSeparator()
        entry.valueStart = parser.index
        // Most claim values are strings: scanned here, without the call and dispatch of skipValue.
        if parser.index < parser.buffer.count, parser.buffer[parser.index] == UInt8(ascii: "\"") {
            try parser.skipString()
        } else {
            try parser.skipValue()
        }
        entry.valueEnd = parser.index
        object.members.append(entry)
    }
}
