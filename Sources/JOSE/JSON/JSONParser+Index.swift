// The parser's index mode: full validation, values not built, root members located.
extension Parser {
    /// Index mode: validates an object, detecting duplicate names by their raw
    /// bytes (decoding only names that contain escapes), and records the root
    /// object's members.
    mutating func indexObject() throws {
        try enter()
        let isRoot = depth == 1
        index += 1
        var names: [JSONMemberRange] = []
        names.reserveCapacity(isRoot ? 24 : 4)
        skipWhitespace()
        if index < buffer.count, buffer[index] == UInt8(ascii: "}") {
            index += 1; depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard index < buffer.count, buffer[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let nameOffset = index
            _ = try parseString()
            let rawStart = nameOffset + 1, rawLength = index - nameOffset - 2
            var decoded: String? = nil
            if lastStringHadEscape {
                let resume = index
                index = nameOffset
                materialize = true
                decoded = try parseString()
                materialize = false
                index = resume
            }
            var entry = JSONMemberRange(nameStart: rawStart, nameLength: rawLength, decodedName: decoded, valueStart: 0, valueEnd: 0)
            for other in names where other.sameName(as: entry, in: buffer) {
                let name = entry.name(in: buffer)
                throw JOSEError(.duplicateJSONMember, "duplicate member name \"\(name.jsonSafePrefix)\" at offset \(nameOffset)", member: name)
            }
            skipWhitespace()
            guard index < buffer.count, buffer[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            entry.valueStart = index
            _ = try parseValue()
            entry.valueEnd = index
            names.append(entry)
            skipWhitespace()
            guard index < buffer.count else { throw fail("unterminated object") }
            if buffer[index] == UInt8(ascii: ",") { index += 1; continue }
            if buffer[index] == UInt8(ascii: "}") { index += 1; break }
            throw fail("expected ',' or '}'")
        }
        depth -= 1
        if isRoot { rootMembers = names }
    }
}
