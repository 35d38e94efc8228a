import Testing

@testable import JOSE

/// The claims index (validation without building values) must agree with the
/// full parser: on every value a claim can hold, and on duplicate names.
@Suite("Claims index agrees with the full parser")
struct ClaimsIndexTests {
    static let values = [
        #""plain""#, #""""#, #""with \"escape\"""#, #""caf\u00e9""#, "\"café\"", "0", "-0", "7", "-42",
        "123456789012345678", "-123456789012345678", "1234567890123456789", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "1.5", "-2.5e3", "1E2", "true", "false", "null",
        "[]", #"["a",1,{"b":null}]"#, "{}", #"{"x":{"y":[1,2]}}"#,
    ]

    @Test("every kind of value reads the same through the index as through the full parser")
    func valuesAgree() throws {
        for value in Self.values {
            let payload = Array(#"{"before":1,"v":\#(value),"after":"z"}"#.utf8)
            let expected = try JSONParser.parseObject(payload, what: "t")["v"]
            let claims = try JWTClaims(payload: payload)
            #expect(claims["v"] == expected, "value \(value)")
            #expect(claims.names == ["before", "v", "after"])
        }
    }

    @Test("duplicate names are found whatever their fingerprint, and near-misses are not duplicates")
    func duplicates() throws {
        let duplicated = [
            #"{"abc":1,"abc":2}"#, #"{"a":1,"\u0061":2}"#, #"{"\u0061":1,"a":2}"#, #"{"":1,"":2}"#,
            #"{"x":1,"y":2,"z":3,"y":4}"#, #"{"n":{"k":1,"k":2}}"#,
        ]
        for text in duplicated {
            #expect(throws: JOSEError.self, "\(text)") { try JWTClaims(payload: Array(text.utf8)) }
            #expect(throws: JOSEError.self, "\(text)") { try JSONParser.parse(Array(text.utf8)) }
        }
        // "abc" and "adc": same length, first and last byte (same fingerprint), different names;
        // "a\u0064d" is "add" once decoded.
        let distinct = #"{"abc":1,"adc":2,"a\u0064d":3,"":4,"b":5}"#
        let claims = try JWTClaims(payload: Array(distinct.utf8))
        #expect(claims.names == ["abc", "adc", "add", "", "b"])
        #expect(claims["adc"] == .integer(2))
        #expect(claims["add"] == .integer(3))
        #expect(claims[""] == .integer(4))
        #expect(claims["ab"] == nil)
    }
}
