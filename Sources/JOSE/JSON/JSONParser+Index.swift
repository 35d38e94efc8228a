// The parser's index mode: full validation, no values built, root members located.
extension Parser {
    /// Index mode: validates an object, detecting duplicate names by their raw
    /// bytes (decoding only names that contain escapes), and records where the
    /// root object's members lie.
    mutating func indexObject() throws {
        try enter()
        let isRoot = depth == 1
        index += 1
        var object = JSONObjectIndex()
        object.members.reserveCapacity(isRoot ? 24 : 4)
        // One bit per (length, first byte, last byte) fingerprint of the raw names seen:
        // equal raw names have equal fingerprints, so a clear bit rules out a duplicate.
        var fingerprints: UInt64 = 0
        skipWhitespace()
        if index < buffer.count, buffer[index] == UInt8(ascii: "}") {
            index += 1; depth -= 1
            if isRoot { rootIndex = object }
            return
        }
        while true {
            skipWhitespace()
            guard index < buffer.count, buffer[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let nameOffset = index
            try skipString()
            let rawStart = nameOffset + 1, rawLength = index - nameOffset - 2
            var entry = JSONMemberRange(nameStart: rawStart, nameLength: rawLength, decodedSlot: -1, valueStart: 0, valueEnd: 0)
            if lastStringHadEscape {
                let resume = index
                index = nameOffset
                materialize = true
                let decoded = try parseString()
                materialize = false
                index = resume
                entry.decodedSlot = object.decodedNames.count
                object.decodedNames.append(decoded)
            }
            var mustCompare = entry.decodedSlot >= 0 || !object.decodedNames.isEmpty
            if !mustCompare {
                let first = rawLength > 0 ? Int(buffer[rawStart]) : 0
                let last = rawLength > 0 ? Int(buffer[rawStart + rawLength - 1]) : 0
                let bit = UInt64(1) << UInt64((rawLength &* 31 &+ first &* 7 &+ last) & 63)
                mustCompare = fingerprints & bit != 0
                fingerprints |= bit
            }
            if mustCompare {
                for other in object.members where object.sameName(other, entry, in: buffer) {
                    let name = object.name(of: entry, in: buffer)
                    throw JOSEError(.duplicateJSONMember, "duplicate member name \"\(name.jsonSafePrefix)\" at offset \(nameOffset)", member: name)
                }
            }
            skipWhitespace()
            guard index < buffer.count, buffer[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            entry.valueStart = index
            try skipValue()
            entry.valueEnd = index
            object.members.append(entry)
            skipWhitespace()
            guard index < buffer.count else { throw fail("unterminated object") }
            if buffer[index] == UInt8(ascii: ",") { index += 1; continue }
            if buffer[index] == UInt8(ascii: "}") { index += 1; break }
            throw fail("expected ',' or '}'")
        }
        depth -= 1
        if isRoot { rootIndex = object }
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
        try enter()
        index += 1
        skipWhitespace()
        if index < buffer.count, buffer[index] == UInt8(ascii: "]") {
            index += 1; depth -= 1
            return
        }
        while true {
            skipWhitespace()
            try skipValue()
            skipWhitespace()
            guard index < buffer.count else { throw fail("unterminated array") }
            if buffer[index] == UInt8(ascii: ",") { index += 1; continue }
            if buffer[index] == UInt8(ascii: "]") { index += 1; break }
            throw fail("expected ',' or ']'")
        }
        depth -= 1
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
