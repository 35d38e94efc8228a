import Testing
@testable import JOSE

/// The string scanner reads eight bytes at a time: every special byte must be
/// found wherever it falls in the word, in full and in index (claims) mode.
@Suite("JSON string scanning at every offset")
struct JSONStringScanTests {
    /// `{"k":"<prefix><special><suffix>"}` parsed both ways.
    static func parseBothWays(_ special: [UInt8], offset: Int, suffix: Int = 11) -> (full: Result<String?, any Error>, indexed: Result<String?, any Error>) {
        let text = Array(#"{"k":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: offset) + special
            + Array(repeating: UInt8(ascii: "b"), count: suffix) + Array(#""}"#.utf8)
        let full = Result<String?, any Error> { try JSONParser.parseObject(text, what: "t")["k"]?.stringValue }
        let indexed = Result<String?, any Error> { try JWTClaims(payload: text).string("k") }
        return (full, indexed)
    }

    static func expected(_ middle: String, offset: Int) -> String {
        String(repeating: "a", count: offset) + middle + String(repeating: "b", count: 11)
    }

    @Test("escapes and UTF-8 decode, control bytes and invalid UTF-8 fail, at offsets 0...23")
    func everyOffset() {
        for offset in 0..<24 {
            let cases: [(bytes: [UInt8], decoded: String?)] = [
                (Array(#"\""#.utf8), "\""), (Array(#"\\"#.utf8), "\\"), (Array(#"\u00e9"#.utf8), "é"),
                (Array("é".utf8), "é"), (Array("€".utf8), "€"), ([0x7F], "\u{7F}"), ([0x5D], "]"),
                ([0x01], nil), ([0x1F], nil), ([0x0A], nil), ([0xFF], nil), ([0xC3], nil),
            ]
            for (bytes, decoded) in cases {
                let (full, indexed) = Self.parseBothWays(bytes, offset: offset)
                if let decoded {
                    #expect((try? full.get()) == Self.expected(decoded, offset: offset), "full parse, byte \(bytes) at \(offset)")
                    #expect((try? indexed.get()) == Self.expected(decoded, offset: offset), "index parse, byte \(bytes) at \(offset)")
                } else {
                    #expect(throws: JOSEError.self, "full parse accepted \(bytes) at \(offset)") { try full.get() }
                    #expect(throws: JOSEError.self, "index parse accepted \(bytes) at \(offset)") { try indexed.get() }
                }
            }
        }
    }

    @Test("a non-ASCII byte in the same word as the closing quote or an escape is still validated")
    func nonASCIIBeforeTheStop() {
        for offset in 0..<24 {
            let cases: [(bytes: [UInt8], decoded: String?)] = [
                ([0xFF], nil), ([0xC3], nil), ([0xE2, 0x82], nil), (Array("é".utf8), "é"), (Array("€".utf8), "€"),
                ([0xFF, 0x5C, 0x6E], nil), (Array("é".utf8) + [0x5C, 0x6E], "é\n"),
            ]
            for (bytes, decoded) in cases {
                let (full, indexed) = Self.parseBothWays(bytes, offset: offset, suffix: 0)
                if let decoded {
                    let want = String(repeating: "a", count: offset) + decoded
                    #expect((try? full.get()) == want, "full parse, bytes \(bytes) at \(offset)")
                    #expect((try? indexed.get()) == want, "index parse, bytes \(bytes) at \(offset)")
                } else {
                    #expect(throws: JOSEError.self, "full parse accepted \(bytes) at \(offset)") { try full.get() }
                    #expect(throws: JOSEError.self, "index parse accepted \(bytes) at \(offset)") { try indexed.get() }
                }
            }
        }
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
