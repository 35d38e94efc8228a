/// Text from a token or a server made safe for a terminal: control characters
/// (C0, DEL, C1 such as the 8-bit CSI) and the bidirectional overrides and isolates
/// (which can make a line read differently from its bytes) are shown as escapes,
/// so no escape sequence from outside reaches the terminal. Used for every human
/// output line and every error message; `--json` output is JSON-escaped instead.
package enum TerminalText {
    /// `text` with each unsafe scalar replaced by `\xNN` (below U+0100) or `\u{NNNN}`.
    /// - Parameter keepingNewlines: keep line feeds and tabs (multi-line views).
    package static func escape(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0, keepingNewlines: keepingNewlines) }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isUnsafe(scalar, keepingNewlines: keepingNewlines) else { out.unicodeScalars.append(scalar); continue }
            let hex = String(scalar.value, radix: 16)
            out += scalar.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{" + hex + "}"
        }
        return out
    }

    package static func isUnsafe(_ scalar: Unicode.Scalar, keepingNewlines: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return !keepingNewlines
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
