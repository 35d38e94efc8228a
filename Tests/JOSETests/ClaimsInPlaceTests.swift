import Foundation
import Testing

@testable import JOSE

/// `iss` and `aud` are first compared in the payload's bytes; the typed reads decide whatever that cannot.
@Suite("JWT iss/aud checks read in place answer as the typed reads")
struct ClaimsInPlaceTests {
    static func claims(_ json: String) throws -> JWTClaims { try JWTClaims(payload: Array(json.utf8)) }
    static let options = JWTValidationPolicy(
        clock: { Date(timeIntervalSince1970: 1_700_000_000) }, issuer: "https://as.example",
        audience: "https://api.example")

    @Test(
        "accepted: plain, escaped, in arrays with spaces, or canonically equal (Swift String equality)",
        arguments: [
            #"{"iss":"https://as.example","aud":"https://api.example"}"#,
            #"{"iss":"https:\/\/as.example","aud":"https:\/\/api.example"}"#,
            #"{"iss":"https://as.example","aud":[ "a" , "https://api.example" ]}"#,
            #"{"iss":"https://as.example","aud":["https:\/\/api.example","b"]}"#,
            #"{"iss":"https://as.example","aud":["https://api.example"],"x":1}"#,
        ])
    func accepted(_ json: String) throws {
        try Self.claims(json).validate(Self.options)
    }

    @Test("canonical equivalence: U+212A KELVIN SIGN equals K, as before")
    func canonical() throws {
        let options = JWTValidationPolicy(issuer: "https://K.example")
        try Self.claims("{\"iss\":\"https://\u{212A}.example\"}").validate(options)
        #expect(try Self.claims("{\"iss\":\"https://\u{212A}.example\"}").stringClaim("iss", isExactly: "https://K.example") == false)
    }

    @Test(
        "refused with the typed read's code",
        arguments: [
            (#"{"iss":"https://as.example/","aud":"https://api.example"}"#, JOSEError.Code.issuerMismatch),
            (#"{"iss":7,"aud":"https://api.example"}"#, .claimTypeMismatch),
            (#"{"aud":"https://api.example"}"#, .missingClaim),
            (#"{"iss":"https://as.example","aud":["https://api.example",7]}"#, .claimTypeMismatch),
            (#"{"iss":"https://as.example","aud":[null,"https://api.example"]}"#, .claimTypeMismatch),
            (#"{"iss":"https://as.example","aud":["https://api.exampl"]}"#, .audienceMismatch),
            (#"{"iss":"https://as.example","aud":[]}"#, .audienceMismatch),
            (#"{"iss":"https://as.example","aud":{"a":"https://api.example"}}"#, .claimTypeMismatch),
            (#"{"iss":"https://as.example"}"#, .missingClaim),
        ])
    func refused(_ json: String, _ code: JOSEError.Code) throws {
        expectCode(code) { try Self.claims(json).validate(Self.options) }
    }

    @Test("the in-place reads: string type, unescaped bytes, exact match only")
    func reads() throws {
        let claims = try Self.claims(#"{"a":"x","b":"\u0078","c":7,"d":null,"aud":["x","y\"z"]}"#)
        #expect(claims.isString("a") == true && claims.isString("b") == true && claims.isString("c") == false)
        #expect(claims.isString("d") == false && claims.isString("e") == nil)
        #expect(claims.withUnescapedString("a") { Array($0) } == Array("x".utf8))
        #expect(claims.withUnescapedString("b") { _ in true } == nil && claims.withUnescapedString("c") { _ in true } == nil)
        #expect(claims.stringClaim("a", isExactly: "x") && !claims.stringClaim("b", isExactly: "x") && !claims.stringClaim("a", isExactly: "xx"))
        #expect(claims.audienceContainsExactly("x") && !claims.audienceContainsExactly("y\"z") && !claims.audienceContainsExactly("y"))
    }
}
