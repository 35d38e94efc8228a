/// The token's bytes as read from the command line or standard input.
///
/// Written with indices over `[UInt8]` only: a `Set<UInt8>` and nested `reversed()`/`drop(while:)`
/// views made the Swift runtime build their generic metadata at run time, and each such type
/// checks its requirements (`UInt8: Hashable`, `Slice<ReversedCollection<[UInt8]>>:
/// BidirectionalCollection`, ...) with a scan of every protocol conformance linked into the
/// binary: five scans, about 0.9 million instructions, 6.6% of an offline RS256 verify.
enum TokenBytes {
    /// Space, tab, line feed and carriage return: what may surround a token (and never appear in one).
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// `bytes` without the whitespace before and after it.
    static func trimmingWhitespace(_ bytes: [UInt8]) -> [UInt8] {
        var start = 0
        var end = bytes.count
        while start < end, isWhitespace(bytes[start]) { start += 1 }
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        return start == 0 && end == bytes.count ? bytes : Array(bytes[start..<end])
    }
}
