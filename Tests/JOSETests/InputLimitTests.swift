import Foundation
import Testing

@testable import JOSE

@Suite("Input limits and strict JSON")
struct InputLimitTests {
    static let key = JWK(symmetricKey: Array(repeating: 0x33, count: 32))

    @Test("a token over 64 KiB is refused before parsing, compact and JSON")
    func oversized() throws {
        let payload = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
        let token = try CompactJWS.sign(payload: payload, key: Self.key, algorithm: .hs256)
        #expect(token.utf8.count > 64 * 1024)
        expectCode(.limitExceeded) { _ = try CompactJWS(token) }
        let parts = token.split(separator: ".").map(String.init)
        let json = #"{"payload":"\#(parts[1])","protected":"\#(parts[0])","signature":"\#(parts[2])"}"#
        expectCode(.limitExceeded) { _ = try JSONSerializedJWS(json: json) }
        // A raised limit admits it.
        let limits = JOSELimits(maxTokenBytes: 128 * 1024)
        try CompactJWS(token, limits: limits).verify(with: Self.key)
        // One byte under the default limit is still parsed (then fails on the bogus signature).
        let small = String(repeating: "A", count: 64 * 1024 - 40)
        let justUnder = Base64URL.encode(#"{"alg":"HS256"}"#) + "." + small + ".AAAA"
        #expect(justUnder.utf8.count <= 64 * 1024)
        expectCode(.invalidSignature) { try CompactJWS(justUnder).verify(with: Self.key) }
    }

    @Test("JSON nested deeper than the limit is refused in headers, payload claims and key sets")
    func nesting() throws {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let header = Base64URL.encode(#"{"alg":"HS256","x":\#(deep)}"#)
        expectCode(.limitExceeded) { _ = try CompactJWS(header + ".e30.AAAA") }
        expectCode(.limitExceeded) { _ = try JSONParser.parse(deep) }
        expectCode(.limitExceeded) { _ = try JWTClaims(payload: Array(#"{"a":\#(deep)}"#.utf8)) }
        expectCode(.limitExceeded) { _ = try JWKSet(json: #"{"keys":\#(deep)}"#) }
        // Exactly at the limit (32) parses.
        let atLimit = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        _ = try JSONParser.parse(atLimit)
        expectCode(.limitExceeded) { _ = try JSONParser.parse("[" + atLimit + "]") }
    }

    @Test(
        "a duplicate header member is refused",
        arguments: [
            #"{"alg":"HS256","alg":"none"}"#, #"{"alg":"HS256","kid":"a","kid":"b"}"#, #"{"alg":"HS256","x":{"y":1,"y":2}}"#,
        ])
    func duplicateHeaderMember(_ header: String) throws {
        expectCode(.duplicateJSONMember) { _ = try CompactJWS(Base64URL.encode(header) + ".e30.AAAA") }
    }

    @Test("duplicate claims and duplicate JWK members are refused")
    func duplicateElsewhere() throws {
        expectCode(.duplicateJSONMember) { _ = try JWTClaims(payload: Array(#"{"sub":"a","sub":"b"}"#.utf8)) }
        expectCode(.duplicateJSONMember) { _ = try JWK(json: #"{"kty":"oct","k":"AAAA","k":"BBBB"}"#) }
    }

    @Test("a key set with more keys than the limit is refused")
    func tooManyKeys() throws {
        let key = #"{"kty":"oct","k":"AAAA"}"#
        let json = #"{"keys":[\#(Array(repeating: key, count: 101).joined(separator: ","))]}"#
        expectCode(.limitExceeded) { _ = try JWKSet(json: json) }
    }
}
