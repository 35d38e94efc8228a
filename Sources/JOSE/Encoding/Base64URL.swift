import CBase64URL

/// Strict unpadded Base64URL (RFC 7515 §2, RFC 4648 §5).
///
/// Decoding rejects padding, whitespace, characters outside the URL-safe
/// alphabet, impossible lengths and non-zero trailing bits, so every byte string
/// has exactly one accepted encoding.
package enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Four 256-entry tables holding each character's 6-bit value already
    /// shifted into place for positions 0...3 of a quantum (18, 12, 6, 0);
    /// bit 31 marks a character outside the alphabet.
    private static let shiftedTables: [UInt32] = {
        var tables = [UInt32](repeating: 0x8000_0000, count: 1024)
        for (value, char) in alphabet.enumerated() {
            for position in 0..<4 {
                tables[position * 256 + Int(char)] = UInt32(value) << (18 - 6 * UInt32(position))
            }
        }
        return tables
    }()

    /// 0xFF marks a byte outside the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes without padding.
    package static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        // Contiguous bytes (an array, a buffer) are encoded where they lie, straight into the string's storage.
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0)) }) { return encoded }
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

    /// Encodes bytes without padding, written straight into the new string's storage.
    package static func encode(_ input: UnsafeRawBufferPointer) -> String {
        let count = (input.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: count) { out in
            alphabet.withUnsafeBufferPointer { alphabet in
                var i = 0
                var o = 0
                while i + 3 <= input.count {
                    let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    out[o] = alphabet[Int(n >> 18 & 63)]
                    out[o + 1] = alphabet[Int(n >> 12 & 63)]
                    out[o + 2] = alphabet[Int(n >> 6 & 63)]
                    out[o + 3] = alphabet[Int(n & 63)]
                    i += 3
                    o += 4
                }
                let rest = input.count - i
                if rest > 0 {
                    let n = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
                    out[o] = alphabet[Int(n >> 18 & 63)]
                    out[o + 1] = alphabet[Int(n >> 12 & 63)]
                    if rest == 2 { out[o + 2] = alphabet[Int(n >> 6 & 63)] }
                }
            }
            return count
        }
    }

    /// Encodes the UTF-8 bytes of a string.
    package static func encode(_ string: String) -> String { encode(Array(string.utf8)) }

    /// Decodes a strict Base64URL string.
    /// - Throws: ``JOSEError`` with code `.invalidBase64URL`.
    package static func decode(_ string: String) throws -> [UInt8] {
        var string = string
        return try string.withUTF8 { buffer throws in try decode(buffer) }
    }

    /// Decodes strict Base64URL from raw ASCII bytes.
    /// - Throws: ``JOSEError`` with code `.invalidBase64URL`.
    package static func decode(_ input: UnsafeBufferPointer<UInt8>) throws -> [UInt8] {
        let outputCount = try decodedCount(of: input.count)
        // One spare byte: each quantum is written with a single 4-byte store.
        // (`repeatElement` builds the array through the specialized allocation path;
        // `init(unsafeUninitializedCapacity:)` looks up the storage type at run time.)
        var out = Array(repeatElement(UInt8(0), count: outputCount + 1))
        try out.withUnsafeMutableBytes { output in
            guard let base = output.baseAddress else { return }
            _ = try decode(input, into: base)
        }
        out.removeLast()
        return out
    }

    /// Calls `body` with the decoded bytes in a temporary buffer (on the stack
    /// when small), for callers that only read them.
    @inline(__always)
    static func withDecoded<R>(_ input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let outputCount = try decodedCount(of: input.count)
        return try withUnsafeTemporaryAllocation(byteCount: outputCount + 1, alignment: 1) { output in
            guard let base = output.baseAddress else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
            let count = try decode(input, into: base)
            return try body(UnsafeRawBufferPointer(start: base, count: count))
        }
    }

    /// The number of bytes `count` characters decode to.
    /// - Throws: `.invalidBase64URL` when no text has that length (`count % 4 == 1`).
    static func decodedCount(of count: Int) throws -> Int {
        if count % 4 == 1 {
            throw JOSEError(.invalidBase64URL, "Base64URL text of length \(count) is impossible (length mod 4 is 1)")
        }
        return count / 4 * 3 + (count % 4 == 0 ? 0 : count % 4 - 1)
    }

    /// Decodes into `output`, which must have room for the decoded bytes plus
    /// one spare byte; returns the decoded count.
    private static func decode(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableRawPointer) throws -> Int {
        let count = input.count
        let outputCount = try decodedCount(of: count)
        // The error flags are locals of the closure and returned at the end: held
        // in a captured variable, they would go through memory on every step.
        let (invalid, nonCanonical) = shiftedTables.withUnsafeBufferPointer { tables -> (UInt32, Bool) in
            guard let t = tables.baseAddress, let inBase = input.baseAddress else { return (0, false) }
            let outBase = output.assumingMemoryBound(to: UInt8.self)
            var invalid: UInt32 = 0
            var nonCanonical = false
            var i = 0, o = 0
            // Whole 16-character blocks with SSSE3 where the CPU has it; the rest here.
            if count >= 24 {
                var blockInvalid: UInt32 = 0
                i = cjose_base64url_decode_blocks(inBase, count, outBase, &blockInvalid)
                o = i / 4 * 3
                if blockInvalid != 0 { invalid = 0x8000_0000 }
            }
            // Two quanta per step; the second 4-byte store overwrites the
            // spare fourth byte of the first.
            while i + 8 <= count {
                let first = t[Int(inBase[i])] | t[256 + Int(inBase[i + 1])] | t[512 + Int(inBase[i + 2])] | t[768 + Int(inBase[i + 3])]
                let second = t[Int(inBase[i + 4])] | t[256 + Int(inBase[i + 5])] | t[512 + Int(inBase[i + 6])] | t[768 + Int(inBase[i + 7])]
                invalid |= first | second
                output.storeBytes(of: (first << 8).bigEndian, toByteOffset: o, as: UInt32.self)
                output.storeBytes(of: (second << 8).bigEndian, toByteOffset: o + 3, as: UInt32.self)
                i += 8; o += 6
            }
            while i + 4 <= count {
                let n = t[Int(inBase[i])] | t[256 + Int(inBase[i + 1])] | t[512 + Int(inBase[i + 2])] | t[768 + Int(inBase[i + 3])]
                invalid |= n
                output.storeBytes(of: (n << 8).bigEndian, toByteOffset: o, as: UInt32.self)
                i += 4; o += 3
            }
            let rest = count - i
            if rest >= 2 {
                var n = t[Int(inBase[i])] | t[256 + Int(inBase[i + 1])]
                if rest == 3 { n |= t[512 + Int(inBase[i + 2])] }
                invalid |= n
                outBase[o] = UInt8(truncatingIfNeeded: n >> 16)
                if rest == 3 { outBase[o + 1] = UInt8(truncatingIfNeeded: n >> 8) }
                // Non-canonical encodings leave bits set below the last output byte.
                nonCanonical = rest == 2 ? n & 0xFFFF != 0 : n & 0xFF != 0
            }
            return (invalid, nonCanonical)
        }
        if invalid & 0x8000_0000 != 0 {
            for index in 0..<count where decodeTable[Int(input[index])] == 0xFF {
                let byte = input[index]
                let what =
                    byte == UInt8(ascii: "=") ? "padding '='" : (byte <= 0x20 ? "whitespace or a control byte" : "a character outside the URL-safe alphabet")
                throw JOSEError(.invalidBase64URL, "Base64URL text contains \(what) at offset \(index)")
            }
        }
        if nonCanonical { throw nonZeroTrailingBits }
        return outputCount
    }

    private static var nonZeroTrailingBits: JOSEError {
        JOSEError(.invalidBase64URL, "Base64URL text has non-zero trailing bits (not the canonical encoding)")
    }
}
