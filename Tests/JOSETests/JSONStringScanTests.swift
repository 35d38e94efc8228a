import Testing

@testable import JOSE

/// The string scanner reads eight bytes at a time: every special byte must be
/// found wherever it falls in the word, in full and in index (claims) mode.
@Suite("JSON string scanning at every offset")
struct JSONStringScanTests {
    /// `{"k":"<prefix><special><suffix>"}` parsed both ways.
    static func parseBothWays(_ special: [UInt8], offset: Int, suffix: Int = 11) -> (full: Result<String?, any Error>, indexed: Result<String?, any Error>) {
        let text =
            Array(#"{"k":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: offset) + special
            + Array(repeating: UInt8(ascii: "b"), count: suffix) + Array(#""}"#.utf8)
        let full = Result<String?, any Error> { try JSONParser.parseObject(text, what: "t")["k"]?.stringValue }
        let indexed = Result<String?, any Error> { try JWTClaims(payload: text).string("k") }
        return (full, indexed)
    }

    /// Each case at offsets 0...23, followed by `suffix` bytes: parsed both ways,
    /// it must decode to the expected text (prefix, decoded, suffix) or fail in both.
    static func expectBothWays(
        _ cases: [(bytes: [UInt8], decoded: String?)], suffix: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for offset in 0..<24 {
            for (bytes, decoded) in cases {
                let (full, indexed) = parseBothWays(bytes, offset: offset, suffix: suffix)
                if let decoded {
                    let want = String(repeating: "a", count: offset) + decoded + String(repeating: "b", count: suffix)
                    #expect((try? full.get()) == want, "full parse, bytes \(bytes) at \(offset)", sourceLocation: sourceLocation)
                    #expect((try? indexed.get()) == want, "index parse, bytes \(bytes) at \(offset)", sourceLocation: sourceLocation)
                } else {
                    #expect(throws: JOSEError.self, "full parse accepted \(bytes) at \(offset)", sourceLocation: sourceLocation) { try full.get() }
                    #expect(throws: JOSEError.self, "index parse accepted \(bytes) at \(offset)", sourceLocation: sourceLocation) { try indexed.get() }
                }
            }
        }
    }

    @Test("escapes and UTF-8 decode, control bytes and invalid UTF-8 fail, at offsets 0...23")
    func everyOffset() {
        Self.expectBothWays(
            [
                (Array(#"\""#.utf8), "\""), (Array(#"\\"#.utf8), "\\"), (Array(#"\u00e9"#.utf8), "é"),
                (Array("é".utf8), "é"), (Array("€".utf8), "€"), ([0x7F], "\u{7F}"), ([0x5D], "]"),
                ([0x01], nil), ([0x1F], nil), ([0x0A], nil), ([0xFF], nil), ([0xC3], nil),
            ], suffix: 11)
    }

    @Test("a non-ASCII byte in the same word as the closing quote or an escape is still validated")
    func nonASCIIBeforeTheStop() {
        Self.expectBothWays(
            [
                ([0xFF], nil), ([0xC3], nil), ([0xE2, 0x82], nil), (Array("é".utf8), "é"), (Array("€".utf8), "€"),
                ([0xFF, 0x5C, 0x6E], nil), (Array("é".utf8) + [0x5C, 0x6E], "é\n"),
            ], suffix: 0)
    }

    @Test("a string ending exactly at a word boundary and an unterminated one")
    func boundaries() {
        for length in 0..<20 {
            let body = String(repeating: "x", count: length)
            #expect((try? JSONParser.parseObject(Array(#"{"k":"\#(body)"}"#.utf8), what: "t"))?["k"]?.stringValue == body)
            #expect(throws: JOSEError.self) { try JSONParser.parseObject(Array(#"{"k":"\#(body)"#.utf8), what: "t") }
        }
    }
}
