// The parser's strings: member names, the eight-bytes-at-a-time scan, escapes.
extension Parser {
    /// A member name: a known JOSE/JWT name is returned as a shared constant.
    mutating func parseName() throws -> String {
        if let base = buffer.baseAddress {
            let start = index + 1
            var i = start
            let limit = min(buffer.count, start + 17)
            // Stop at control characters too: they are invalid unescaped (parseString rejects them),
            // and KnownNames packs names with zero padding, so "d\0" would otherwise match "d".
            while i < limit, base[i] != UInt8(ascii: "\""), base[i] != UInt8(ascii: "\\"), base[i] >= 0x20 { i += 1 }
            if i < limit, base[i] == UInt8(ascii: "\""), let known = KnownNames.name(base + start, count: i - start) {
                index = i + 1
                return known
            }
        }
        return try parseString()
    }

    /// Scans the unescaped run of a string from `start` (just past the opening
    /// quote) up to the first '"', '\\', control byte or the end of the text,
    /// and tells whether every byte before that point is ASCII.
    @inline(__always) func scanPlainRun(from start: Int) -> (stop: Int, isASCII: Bool) {
        guard let base = buffer.baseAddress else { return (start, true) }
        let end = buffer.count
        var i = start
        var isASCII = true
        // Eight bytes at a time while none of them is '"', '\\', a control
        // character or (for the ASCII flag) a byte >= 0x80: "has a zero byte"
        // tests on the word, exact for whether such a byte exists.
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        while i + 8 <= end {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            let quote = word ^ 0x2222_2222_2222_2222, backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let special =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                | ((word &- 0x2020_2020_2020_2020) & ~word)
            let flagged = special & highs
            if flagged != 0 {
                // A borrow can only flag bytes above a truly special one, so the
                // lowest flagged byte is the first special byte (little-endian load).
                let offset = flagged.trailingZeroBitCount >> 3
                let before: UInt64 = offset == 0 ? 0 : UInt64.max >> UInt64(64 - 8 * offset)
                if word & highs & before != 0 { isASCII = false }
                return (i + offset, isASCII)
            }
            if word & highs != 0 { isASCII = false }
            i += 8
        }
        // Bytes 0x5D...0xFF (lower-case letters, most punctuation) need one compare.
        while i < end {
            let byte = base[i]
            if byte >= 0x5D {
                if byte >= 0x80 { isASCII = false }
                i += 1
                continue
            }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            i += 1
        }
        return (i, isASCII)
    }

    mutating func parseString() throws -> String {
        lastStringHadEscape = false
        let start = index + 1
        let (stop, isASCII) = scanPlainRun(from: start)
        index = stop
        if stop < buffer.count {
            let byte = buffer[stop]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: buffer[start..<stop])
                index = stop + 1
                if isASCII { return materialize ? String(decoding: slice, as: UTF8.self) : "" }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw JOSEError(.invalidJSON, "string at offset \(start) is not valid UTF-8")
                }
                return string
            }
            if byte < 0x20 { throw fail("unescaped control character in string") }
        }
        guard index < buffer.count else { throw fail("unterminated string") }
        lastStringHadEscape = true
        var bytes = Array(UnsafeBufferPointer(rebasing: buffer[start..<index]))
        while index < buffer.count {
            let byte = buffer[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                guard let string = String(validating: bytes, as: UTF8.self) else {
                    throw JOSEError(.invalidJSON, "string at offset \(start) is not valid UTF-8")
                }
                return string
            }
            if byte < 0x20 { throw fail("unescaped control character in string") }
            if byte != UInt8(ascii: "\\") { bytes.append(byte); index += 1; continue }
            index += 1
            guard index < buffer.count else { throw fail("unterminated escape") }
            let escape = buffer[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): bytes.append(0x22)
            case UInt8(ascii: "\\"): bytes.append(0x5C)
            case UInt8(ascii: "/"): bytes.append(0x2F)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard buffer.count - index >= 6, buffer[index] == UInt8(ascii: "\\"), buffer[index + 1] == UInt8(ascii: "u") else {
                        throw fail("lone high surrogate in string")
                    }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("invalid surrogate pair in string") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("lone low surrogate in string")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid unicode escape") }
                bytes.append(contentsOf: Array(String(Character(unicode)).utf8))
            default:
                throw fail("invalid escape sequence")
            }
        }
        throw fail("unterminated string")
    }

    mutating func parseHex4() throws -> UInt32 {
        guard buffer.count - index >= 4 else { throw fail("truncated unicode escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = buffer[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("invalid hex digit in unicode escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
