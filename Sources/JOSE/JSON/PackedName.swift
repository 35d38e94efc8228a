/// A short name's UTF-8 bytes packed big-endian into one integer, with its
/// byte count: the header checks compare names as integers rather than strings.
struct PackedName: Equatable {
    let count: Int
    let bytes: UInt64

    /// `nil` when the name is empty or longer than eight bytes.
    init?(_ name: String) {
        // Contiguous UTF-8 (on the stack for small strings): indexing the
        // UTF-8 view of a small string byte by byte costs several times more.
        let packed = name.utf8.withContiguousStorageIfAvailable { utf8 -> (Int, UInt64) in
            guard !utf8.isEmpty, utf8.count <= 8 else { return (0, 0) }
            var bytes: UInt64 = 0
            for byte in utf8 { bytes = bytes << 8 | UInt64(byte) }
            return (utf8.count, bytes)
        }
        let (count, bytes) = packed ?? PackedName.slowPack(name)
        guard count > 0 else { return nil }
        self.count = count
        self.bytes = bytes
    }

    private static func slowPack(_ name: String) -> (Int, UInt64) {
        let utf8 = Array(name.utf8)
        guard !utf8.isEmpty, utf8.count <= 8 else { return (0, 0) }
        return (utf8.count, utf8.reduce(0) { $0 << 8 | UInt64($1) })
    }
}
