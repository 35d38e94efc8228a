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

    /// Compact JSON bytes in stored member order: the bytes of ``jsonString(sortedKeys:)`` without sorting,
    /// written into an array (no string growth on the way; for claims built from an object).
    func compactJSONBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        writeCompact(to: &out)
        return out
    }

    private func writeCompact(to out: inout [UInt8]) {
        switch self {
        case .string(let s):
            if s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                var text = ""
                JSONValue.writeString(s, to: &text)
                out.append(contentsOf: text.utf8)
            } else {
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: s.utf8)
                out.append(UInt8(ascii: "\""))
            }
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
                JSONValue.string(member.name).writeCompact(to: &out)
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
