extension JSONValue {
    /// Compact JSON text. With `sortedKeys`, object members are ordered by
    /// their UTF-16 code units (RFC 7638 / RFC 8785 ordering); otherwise in
    /// their stored order.
    public func jsonString(sortedKeys: Bool = false) -> String {
        var out = ""
        write(to: &out, sortedKeys: sortedKeys, indent: nil, level: 0)
        return out
    }

    /// Indented JSON text for people (two spaces, keys sorted when asked).
    public func prettyJSONString(sortedKeys: Bool = true) -> String {
        var out = ""
        write(to: &out, sortedKeys: sortedKeys, indent: "  ", level: 0)
        return out
    }

    func write(to out: inout String, sortedKeys: Bool, indent: String?, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .double(let d):
            if d.rounded(.towardZero) == d, abs(d) < 1e15 { out += String(Int64(d)) } else { out += "\(d)" }
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let elements):
            if elements.isEmpty { out += "[]"; return }
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                if let indent { out += "\n" + String(repeating: indent, count: level + 1) }
                element.write(to: &out, sortedKeys: sortedKeys, indent: indent, level: level + 1)
            }
            if let indent { out += "\n" + String(repeating: indent, count: level) }
            out += "]"
        case .object(let object):
            if object.isEmpty { out += "{}"; return }
            out += "{"
            let members = sortedKeys ? object.members.sorted { $0.name.utf16.lexicographicallyPrecedes($1.name.utf16) } : object.members
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                if let indent { out += "\n" + String(repeating: indent, count: level + 1) }
                JSONValue.writeString(member.name, to: &out)
                out += indent == nil ? ":" : ": "
                member.value.write(to: &out, sortedKeys: sortedKeys, indent: indent, level: level + 1)
            }
            if let indent { out += "\n" + String(repeating: indent, count: level) }
            out += "}"
        }
    }

    /// Compact JSON bytes of `object` in stored member order (the bytes of ``jsonString(sortedKeys:)`` without sorting,
    /// written into an array) with the index of its top-level members, recorded as they are written (the text is not
    /// read again to find them).
    static func compactJSONBytesIndexed(_ object: JSONObject) -> (bytes: [UInt8], index: JSONObjectIndex) {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        var index = JSONObjectIndex()
        index.members.reserveCapacity(object.count)
        out.append(UInt8(ascii: "{"))
        for (i, member) in object.members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            let nameStart = out.count + 1
            let plain = JSONValue.writeCompactString(member.name, to: &out)
            var range = JSONMemberRange(nameStart: nameStart, nameLength: out.count - 1 - nameStart, decodedSlot: -1, valueStart: 0, valueEnd: 0)
            if !plain {
                range.decodedSlot = index.decodedNames.count
                index.decodedNames.append(member.name)
            }
            out.append(UInt8(ascii: ":"))
            range.valueStart = out.count
            member.value.writeCompact(to: &out)
            range.valueEnd = out.count
            index.members.append(range)
        }
        out.append(UInt8(ascii: "}"))
        return (out, index)
    }

    private func writeCompact(to out: inout [UInt8]) {
        switch self {
        case .string(let s): JSONValue.writeCompactString(s, to: &out)
        case .integer(let i): JSONValue.writeInteger(i, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.writeCompact(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeCompactString(member.name, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.writeCompact(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        default:
            var text = ""
            write(to: &text, sortedKeys: false, indent: nil, level: 0)
            out.append(contentsOf: text.utf8)
        }
    }

    /// A JSON string literal of `string`: its UTF-8 bytes copied whole when nothing needs escaping (scanned in place).
    /// - Returns: whether the string was written without escapes.
    @discardableResult
    private static func writeCompactString(_ string: String, to out: inout [UInt8]) -> Bool {
        let plain = string.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !needsEscape(bytes) else { return false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if plain == true { return true }
        var text = ""
        JSONValue.writeString(string, to: &text)
        out.append(contentsOf: text.utf8)
        return false
    }

    /// Whether `bytes` hold a control character, `"` or `\` (what a JSON string literal escapes), eight bytes at a time.
    private static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var position = 0
        while position + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
            // A byte below 0x20, or a byte equal to 0x22 or 0x5C (its XOR with them is zero): exact as a yes/no test.
            let control = (word &- ones &* 0x20) & ~word & highs
            let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
            let equal = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & highs
            if control | equal != 0 { return true }
            position += 8
        }
        while position < bytes.count {
            let byte = base[position]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            position += 1
        }
        return false
    }

    /// The decimal digits of `value` (as `String(value)` writes them), without an intermediate string.
    private static func writeInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        // The magnitude as unsigned: `Int.min` has no positive counterpart.
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: Int64 has at most 19 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[position...]))
        }
    }

    static func writeString(_ string: String, to out: inout String) {
        out += "\""
        // Most strings need no escape: appended whole rather than scalar by scalar.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += string
            out += "\""
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension JSONObject {
    /// Compact JSON text of this object.
    public func jsonString(sortedKeys: Bool = false) -> String { JSONValue.object(self).jsonString(sortedKeys: sortedKeys) }
}
