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

    static func writeString(_ string: String, to out: inout String) {
        out += "\""
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
