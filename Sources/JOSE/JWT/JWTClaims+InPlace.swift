#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads of claims in the payload's own bytes, for the checks of a validation's hot path: nothing is
/// decoded or allocated. Each answers only what it can tell from the text as written; a caller falls
/// back to the typed getters (``JWTClaims/string(_:)``, ``JWTClaims/audience``) whenever a read here
/// says "not known", so every rule keeps one definition.
extension JWTClaims {
    /// Whether claim `name` is present (whatever its value), without decoding it.
    package func contains(_ name: String) -> Bool {
        payload.withUnsafeBufferPointer { index.member(named: name, in: $0) != nil }
    }

    /// Whether claim `name` is absent (`nil`), a JSON string (`true`) or another JSON value (`false`),
    /// read from the first byte of its validated value.
    package func isString(_ name: String) -> Bool? {
        payload.withUnsafeBufferPointer { buffer -> Bool? in
            guard let member = index.member(named: name, in: buffer), member.valueEnd > member.valueStart else { return nil }
            return buffer[member.valueStart] == UInt8(ascii: "\"")
        }
    }

    /// Where in ``payload`` the bytes between the quotes of claim `name` lie, when it is a JSON string
    /// written without escapes (so the bytes are its UTF-8 value); `nil` otherwise (absent, another
    /// type, or escaped: read it with ``string(_:)``). Not generic, so callers in other modules call it directly.
    package func unescapedStringRange(_ name: String) -> Range<Int>? {
        payload.withUnsafeBufferPointer { buffer -> Range<Int>? in
            guard let member = index.member(named: name, in: buffer),
                let text = Self.unescapedString(UnsafeBufferPointer(rebasing: buffer[member.valueStart..<member.valueEnd])),
                let textStart = text.baseAddress, let start = buffer.baseAddress
            else { return nil }
            let offset = start.distance(to: textStart)
            return offset..<(offset + text.count)
        }
    }

    /// Calls `body` with the bytes ``unescapedStringRange(_:)`` locates; `nil` when it locates none.
    package func withUnescapedString<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        guard let range = unescapedStringRange(name) else { return nil }
        return try payload.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// `true` when claim `name` is a JSON string written without escapes whose bytes are `expected`'s UTF-8
    /// (then ``string(_:)`` reads a value equal to `expected`); `false` says nothing: compare the decoded value.
    package func stringClaim(_ name: String, isExactly expected: String) -> Bool {
        var expected = expected
        return expected.withUTF8 { wanted in withUnescapedString(name) { Self.equal($0, wanted) } ?? false }
    }

    /// `true` when `aud` is a string written without escapes whose bytes are `expected`'s UTF-8, or an array
    /// of strings only, one of them such a string (then ``audience`` reads an array containing `expected`);
    /// `false` says nothing: read ``audience``.
    package func audienceContainsExactly(_ expected: String) -> Bool {
        var expected = expected
        return expected.withUTF8 { wanted in
            payload.withUnsafeBufferPointer { buffer -> Bool in
                guard let member = index.member(named: "aud", in: buffer) else { return false }
                let value = UnsafeBufferPointer(rebasing: buffer[member.valueStart..<member.valueEnd])
                if let single = Self.unescapedString(value) { return Self.equal(single, wanted) }
                return Self.arrayOfStringsContains(value, wanted)
            }
        }
    }

    /// The bytes between the quotes of a validated JSON value that is a string without `\`; else `nil`.
    private static func unescapedString(_ value: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard let base = value.baseAddress, value.count >= 2, base[0] == UInt8(ascii: "\"") else { return nil }
        let inner = UnsafeBufferPointer(start: base + 1, count: value.count - 2)
        if inner.count > 0, memchr(base + 1, Int32(UInt8(ascii: "\\")), inner.count) != nil { return nil }
        return inner
    }

    private static func equal(_ one: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard one.count == other.count else { return false }
        guard one.count > 0, let a = one.baseAddress, let b = other.baseAddress else { return true }
        return memcmp(a, b, one.count) == 0
    }

    /// Whether a validated JSON value is an array whose elements are all strings, one of them written
    /// without escapes as `wanted`'s bytes. Any other element (or an escaped match) answers `false`.
    private static func arrayOfStringsContains(_ value: UnsafeBufferPointer<UInt8>, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = value.baseAddress, value.count >= 2, base[0] == UInt8(ascii: "[") else { return false }
        var found = false
        var index = 1
        let end = value.count - 1  // the closing bracket
        func skipSpace() {
            while index < end, base[index] == 0x20 || base[index] == 0x09 || base[index] == 0x0A || base[index] == 0x0D { index += 1 }
        }
        skipSpace()
        while index < end {
            guard base[index] == UInt8(ascii: "\"") else { return false }  // not a string: let the typed read decide
            let start = index + 1
            var cursor = start
            var escaped = false
            while cursor < end, base[cursor] != UInt8(ascii: "\"") {
                if base[cursor] == UInt8(ascii: "\\") { escaped = true; cursor += 2 } else { cursor += 1 }
            }
            guard cursor < end else { return false }
            if !found, !escaped, equal(UnsafeBufferPointer(start: base + start, count: cursor - start), wanted) { found = true }
            index = cursor + 1
            skipSpace()
            if index < end, base[index] == UInt8(ascii: ",") { index += 1; skipSpace() }
        }
        return found
    }
}
