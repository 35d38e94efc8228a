extension JOSEHeader {
    /// Whether the header's `typ` names the media type `expected` (such as `at+jwt`), compared as RFC 7515 §4.1.9
    /// says: ASCII letters case-insensitively, `application/` implied on a value without `/`. Every validator of
    /// the package checks `typ` through this one rule (RFC 8725bis explicit typing).
    public func hasType(_ expected: String) -> Bool { Self.mediaType(type, is: expected) }

    /// The comparison of ``hasType(_:)`` on a `typ` value read elsewhere; `nil` is no type. Nothing but ASCII
    /// letters is folded: `K` (U+212A) is not `k`, and no whitespace or parameter is ignored.
    public static func mediaType(_ value: String?, is expected: String) -> Bool {
        guard var value else { return false }
        var expected = expected
        return value.withUTF8 { given in
            expected.withUTF8 { wanted in MediaTypeName(given) == MediaTypeName(wanted) }
        }
    }
}

/// A `typ` value as RFC 7515 §4.1.9 reads it: `application/` before a value without `/`; compared with
/// ASCII case folding, byte by byte, without building a string.
private struct MediaTypeName: Equatable {
    static let prefix: StaticString = "application/"
    let bytes: UnsafeBufferPointer<UInt8>
    let implied: Bool

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        implied = !bytes.contains(UInt8(ascii: "/"))
    }

    var count: Int { bytes.count + (implied ? Self.prefix.utf8CodeUnitCount : 0) }

    func byte(at index: Int) -> UInt8 {
        let prefixLength = implied ? Self.prefix.utf8CodeUnitCount : 0
        let byte = index < prefixLength ? Self.prefix.utf8Start[index] : bytes[index - prefixLength]
        return byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    static func == (lhs: MediaTypeName, rhs: MediaTypeName) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count where lhs.byte(at: index) != rhs.byte(at: index) { return false }
        return true
    }
}
