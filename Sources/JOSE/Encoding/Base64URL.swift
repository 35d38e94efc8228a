/// Strict unpadded Base64URL (RFC 7515 §2, RFC 4648 §5).
///
/// Decoding rejects padding, whitespace, characters outside the URL-safe
/// alphabet, impossible lengths and non-zero trailing bits, so every byte string
/// has exactly one accepted encoding.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks a byte outside the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes without padding.
    public static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out.append(alphabet[Int(n >> 18 & 63)]); out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)]); out.append(alphabet[Int(n & 63)])
            i += 3
        }
        let rest = input.count - i
        if rest == 1 {
            let n = UInt32(input[i]) << 16
            out.append(alphabet[Int(n >> 18 & 63)]); out.append(alphabet[Int(n >> 12 & 63)])
        } else if rest == 2 {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            out.append(alphabet[Int(n >> 18 & 63)]); out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes the UTF-8 bytes of a string.
    public static func encode(_ string: String) -> String { encode(Array(string.utf8)) }

    /// Decodes a strict Base64URL string.
    /// - Throws: ``JOSEError`` with code `.invalidBase64URL`.
    public static func decode(_ string: String) throws -> [UInt8] {
        var string = string
        return try string.withUTF8 { buffer throws in try decode(buffer) }
    }

    /// Decodes strict Base64URL from raw ASCII bytes.
    /// - Throws: ``JOSEError`` with code `.invalidBase64URL`.
    public static func decode(_ input: UnsafeBufferPointer<UInt8>) throws -> [UInt8] {
        let count = input.count
        if count % 4 == 1 {
            throw JOSEError(.invalidBase64URL, "Base64URL text of length \(count) is impossible (length mod 4 is 1)")
        }
        var out = [UInt8]()
        out.reserveCapacity(count * 3 / 4)
        let table = decodeTable
        var i = 0
        @inline(__always) func value(_ index: Int) throws -> UInt32 {
            let v = table[Int(input[index])]
            if v == 0xFF {
                let what = input[index] == UInt8(ascii: "=") ? "padding '='" :
                    (input[index] <= 0x20 ? "whitespace or a control byte" : "a character outside the URL-safe alphabet")
                throw JOSEError(.invalidBase64URL, "Base64URL text contains \(what) at offset \(index)")
            }
            return UInt32(v)
        }
        while i + 4 <= count {
            let n = try value(i) << 18 | value(i + 1) << 12 | value(i + 2) << 6 | value(i + 3)
            out.append(UInt8(n >> 16 & 0xFF)); out.append(UInt8(n >> 8 & 0xFF)); out.append(UInt8(n & 0xFF))
            i += 4
        }
        let rest = count - i
        if rest == 2 {
            let n = try value(i) << 18 | value(i + 1) << 12
            if n & 0xFFFF != 0 { throw nonZeroTrailingBits }
            out.append(UInt8(n >> 16 & 0xFF))
        } else if rest == 3 {
            let n = try value(i) << 18 | value(i + 1) << 12 | value(i + 2) << 6
            if n & 0xFF != 0 { throw nonZeroTrailingBits }
            out.append(UInt8(n >> 16 & 0xFF)); out.append(UInt8(n >> 8 & 0xFF))
        }
        return out
    }

    private static var nonZeroTrailingBits: JOSEError {
        JOSEError(.invalidBase64URL, "Base64URL text has non-zero trailing bits (not the canonical encoding)")
    }
}
