import Foundation
import Testing

@testable import JOSE

/// Inputs found by the libFuzzer targets in Tests/Fuzz that crashed the process.
/// Each input is also kept in the target's seed corpus (Tests/Fuzz/Corpus/<target>/<sha1>).
@Suite("Fuzz regressions (JOSE)")
struct FuzzRegressionTests {
    static let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }

    /// fuzz-jwt-claims, Corpus/fuzz-jwt-claims/2d1dbbecf60b6e633fd599b1a5a4c4d6746a8d96:
    /// `validate` formatted the NumericDate of its error message with `Int64(_:)`, which
    /// traps for numbers outside Int64 ("iat": 1e+308) instead of throwing. Now outside the NumericDate
    /// range, it is a claim type error.
    @Test("a NumericDate outside Int64 is an error, not a trap (fuzz-jwt-claims crash 2d1dbbec)")
    func hugeIssuedAt() throws {
        let input = #"{"sub":"x","%xp":-1,"iat":1e+308,"nested":{"a":[1,2.5,-0.0,1e-07,null,true,false,"\u0000"]}}"#
        let claims = try JWTClaims(payload: Array(input.utf8))
        let error = #expect(throws: JOSEError.self) { try claims.validate(JWTValidationPolicy(clock: Self.clock)) }
        #expect(error?.code == .claimTypeMismatch)
    }

    @Test(
        "exp, nbf and iat at the edges of Double are claim type errors (outside the NumericDate range), not traps",
        arguments: [
            ("exp", "-1e300", JOSEError.Code.claimTypeMismatch), ("exp", "-9223372036854775809", .claimTypeMismatch),
            ("nbf", "1e300", .claimTypeMismatch), ("nbf", "9223372036854775808", .claimTypeMismatch),
            ("iat", "1.7976931348623157e308", .claimTypeMismatch),
        ])
    func extremeDates(_ claim: String, _ number: String, _ code: JOSEError.Code) throws {
        let claims = try JWTClaims(payload: Array(#"{"\#(claim)":\#(number)}"#.utf8))
        let error = #expect(throws: JOSEError.self) { try claims.validate(JWTValidationPolicy(clock: Self.clock)) }
        #expect(error?.code == code)
    }

    @Test("JWT.verify of a correctly signed token with exp -1e300 refuses it (a claim type error)")
    func signedTokenWithHugeExpiry() throws {
        let key = try TestKeys.jwk("hmac.jwk")
        let token = try CompactJWS.sign(payload: Array(#"{"sub":"x","exp":-1e300}"#.utf8), key: key, algorithm: .hs256)
        let error = #expect(throws: JOSEError.self) {
            try JWT.verifyIgnoringIssuerAndAudience(token, key: key, validation: JWTValidationPolicy(clock: Self.clock))
        }
        #expect(error?.code == .claimTypeMismatch)
    }

    /// fuzz-jwt-claims, Corpus/fuzz-jwt-claims/5a920b3492a4281882b3d34c3638d41b871014b7 (`{"d<NUL>":9}`):
    /// the member-name fast path matched known names on zero-padded words, so a raw NUL after a
    /// known name ("d\0", "alg\0") was accepted as that name, though an unescaped control
    /// character is invalid JSON (and JWTClaims' index pass rejected the same payload).
    @Test(
        "a raw control character in a member name is invalid JSON, not an alias of a known name",
        arguments: [
            "{\"d\u{0}\":9}", "{\"alg\u{0}\":\"none\"}", "{\"kty\u{0}\u{0}\":\"oct\"}", "{\"iss\u{1F}\":\"x\"}",
            "{\"alg\":\"HS256\",\"alg\u{0}\":\"none\"}",
        ])
    func controlCharacterInName(_ text: String) throws {
        let bytes = Array(text.utf8)
        let parse = #expect(throws: JOSEError.self) { try JSONParser.parse(bytes) }
        #expect(parse?.code == .invalidJSON)
        #expect(throws: JOSEError.self) { try JSONParser.parseObject(bytes, what: "test") }
        #expect(throws: JOSEError.self) { try JWTClaims(payload: bytes) }
    }

    @Test("a JWS header with a raw NUL after \"alg\" is refused")
    func controlCharacterInHeaderName() throws {
        let key = try TestKeys.jwk("hmac.jwk")
        let token = try CompactJWS.sign(payload: Array("{}".utf8), key: key, algorithm: .hs256)
        let parts = token.split(separator: ".")
        let header = Base64URL.encode(Array("{\"alg\u{0}\":\"HS256\"}".utf8))
        #expect(throws: JOSEError.self) { try CompactJWS("\(header).\(parts[1]).\(parts[2])") }
        #expect(throws: JOSEError.self) { try JWK(json: "{\"kty\u{0}\":\"oct\",\"k\":\"AAAA\"}") }
    }
}
