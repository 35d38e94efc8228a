import Foundation
import Testing

@testable import JOSE

/// Claims built from an object (`JWTClaims(_:)`, what SD-JWT verification returns) are serialized with their index
/// recorded as they are written: the bytes must be the object's compact JSON and every claim must read back.
@Suite("Claims built from an object: bytes and index written together")
struct ClaimsFromObjectTests {
    @Test("the payload is the compact JSON text and every member, escaped names and edge integers included, reads back")
    func bytesAndIndexAgree() throws {
        let object = JSONObject([
            ("iss", .string("https://issuer.example")),
            ("zero", .integer(0)), ("negative", .integer(-42)), ("max", .integer(.max)), ("min", .integer(.min)),
            ("quote\"name", .string("a \"quoted\" value")), ("back\\slash", .string("tab\there")), ("line\nname", .bool(true)),
            ("café", .string("naïve")), ("", .null), ("nested", .object(JSONObject([("a", .array([.integer(1), .double(2.5)]))]))),
        ])
        let claims = JWTClaims(object)
        #expect(claims.payload == Array(JSONValue.object(object).jsonString().utf8))
        // The index written with the bytes agrees with one made by the validating parser over the same bytes.
        let parsed = try JWTClaims(payload: claims.payload)
        #expect(claims.names == object.names)
        for member in object {
            #expect(claims[member.name] == member.value, "member \(member.name)")
            #expect(parsed[member.name] == member.value, "member \(member.name)")
        }
        #expect(claims["absent"] == nil)
        #expect(try JSONParser.parseObject(claims.payload, what: "claims") == object)
    }

    @Test("strings needing an escape are found by the eight-byte scan wherever the character sits (every offset, every length up to 24)")
    func escapesAtEveryOffset() throws {
        // Each character JSON escapes, and bytes next to them that must not be taken for them (0x1F/0x20, 0x21/0x23,
        // 0x5B/0x5D, 0x7F, 0xA2/0xDC inside UTF-8, whose high bit is set).
        let specials: [Character] = ["\"", "\\", "\n", "\u{00}", "\u{1F}", " ", "!", "#", "[", "]", "\u{7F}", "¢", "Ü"]
        for length in 1...24 {
            for offset in 0..<length {
                for special in specials {
                    var text = String(repeating: "a", count: length)
                    let at = text.index(text.startIndex, offsetBy: offset)
                    text.replaceSubrange(at...at, with: String(special))
                    let object = JSONObject([(text, .string(text))])
                    let claims = JWTClaims(object)
                    #expect(claims.payload == Array(JSONValue.object(object).jsonString().utf8), "length \(length) offset \(offset)")
                    #expect(claims[text] == .string(text), "length \(length) offset \(offset)")
                }
            }
        }
    }

    @Test("an object's member check passes over names of another length and finds equal names of the same length")
    func memberCheck() {
        let object = JSONObject([("ab", .null), ("abc", .null), ("é", .null), ("", .null)])
        #expect(object.hasMember(named: "abc") && object.hasMember(named: "ab") && object.hasMember(named: "é") && object.hasMember(named: ""))
        #expect(!object.hasMember(named: "abd") && !object.hasMember(named: "a") && !object.hasMember(named: "e\u{301}") && !object.hasMember(named: "abcd"))
    }

    @Test("Base64URL of contiguous bytes matches Foundation's Base64 made URL-safe and unpadded, at every tail length")
    func base64URLOfBuffers() {
        let bytes = (0..<70).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for count in 0...bytes.count {
            let slice = Array(bytes[0..<count])
            let expected = Data(slice).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(slice) == expected, "length \(count)")
            #expect(slice.withUnsafeBytes { Base64URL.encode($0) } == expected, "length \(count)")
            #expect(Base64URL.encode(slice.lazy.map { $0 }) == expected, "length \(count) (not contiguous)")
        }
    }
}
