/// Direct reads of the commonest values of already-validated JSON text, without
/// running the parser: plain strings (no escapes, ASCII) and integers of up to
/// 18 digits. Anything else returns `nil` and takes the full parser.
enum JSONScalar {
    /// The value of `text`, a complete JSON value that has been validated, when it is a simple scalar.
    static func value(of text: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        guard let base = text.baseAddress, text.count >= 1 else { return nil }
        let first = base[0]
        if first == UInt8(ascii: "\"") {
            guard text.count >= 2 else { return nil }
            for offset in 1..<(text.count - 1) where base[offset] == UInt8(ascii: "\\") || base[offset] >= 0x80 { return nil }
            return .string(String(decoding: UnsafeBufferPointer(start: base + 1, count: text.count - 2), as: UTF8.self))
        }
        let negative = first == UInt8(ascii: "-")
        let digitsStart = negative ? 1 : 0
        let digitCount = text.count - digitsStart
        guard digitCount >= 1, digitCount <= 18 else { return nil }
        var value: Int64 = 0
        for offset in digitsStart..<text.count {
            let digit = base[offset] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
        }
        return .integer(negative ? -value : value)
    }
}
