import Foundation
import Testing

@testable import JOSE

/// A NumericDate in `exp`, `nbf`, `iat` or `auth_time` is a number of seconds from 0
/// (1970-01-01T00:00:00Z) to 253402300799 (9999-12-31T23:59:59Z); anything else is a claim type
/// error, not a date: `exp: 1e30` was accepted as "expires in 3e22 years".
@Suite("NumericDate range (0 ... 9999-12-31T23:59:59Z)")
struct NumericDateRangeTests {
    static let options = JWTValidationPolicy(clock: { Date(timeIntervalSince1970: 1_800_000_000) })

    /// `auth_time` has no rule in the generic validation (ID Tokens and access tokens read it with
    /// `date(_:)`, so the same range applies there: jwt-inspect's `--as id-token` test checks it).
    @Test(
        "out of range in exp, nbf, iat or auth_time: claim_type_mismatch naming the claim, from the getter and (times) from validate",
        arguments: ["exp", "nbf", "iat", "auth_time"], ["1e30", "253402300800", "253402300799.5", "-1", "-0.5", "1e300", "-1e300"])
    func outOfRange(_ claim: String, _ number: String) throws {
        let claims = try JWTClaims(payload: Array(#"{"sub":"a","\#(claim)":\#(number)}"#.utf8))
        let read = #expect(throws: JOSEError.self) { _ = try claims.date(claim) }
        #expect(read?.code == .claimTypeMismatch && read?.member == claim)
        #expect(read?.reason.contains("NumericDate range") == true)
        guard claim != "auth_time" else { return }
        let validated = #expect(throws: JOSEError.self) { try claims.validate(Self.options) }
        #expect(validated?.code == .claimTypeMismatch && validated?.member == claim)
    }

    @Test("the bounds themselves and fractions in between are dates", arguments: ["0", "253402300799", "1800000000.25", "-0"])
    func inRange(_ number: String) throws {
        for claim in ["exp", "iat"] {
            let claims = try JWTClaims(payload: Array(#"{"\#(claim)":\#(number)}"#.utf8))
            #expect(try claims.date(claim) == Date(timeIntervalSince1970: Double(number) ?? .nan))
        }
        #expect(try JWTClaims(payload: Array(#"{"auth_time":\#(number)}"#.utf8)).date("auth_time") != nil)
    }

    @Test("a signed token with exp 1e30 is refused by JWT verification (was: valid for 3e22 years)")
    func signedFarFuture() throws {
        let key = try TestKeys.jwk("hmac.jwk")
        let token = try CompactJWS.sign(payload: Array(#"{"sub":"x","exp":1e30}"#.utf8), key: key, algorithm: .hs256)
        let error = #expect(throws: JOSEError.self) {
            try JWT.verifyIgnoringIssuerAndAudience(token, key: key, validation: Self.options)
        }
        #expect(error?.code == .claimTypeMismatch && error?.member == "exp")
    }
}
