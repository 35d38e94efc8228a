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
