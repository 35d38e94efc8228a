import Foundation
import Testing

@testable import JOSE

/// Issue 13: no `Int(Double)` trap from a time value or a leeway, and no leeway that
/// switches the time checks off.
@Suite("Large time values and leeway (issue 13)")
struct LargeTimeValueTests {
    @Test(
        "checked conversions: NaN, infinities and values beyond Int64 give nil, never a trap",
        arguments: [Double.nan, .infinity, -.infinity, 1e27, -1e30, 9.3e18, 123456789012345678901234567890.0])
    func conversions(_ value: Double) {
        #expect(value.wholeInt64 == nil)
        #expect(value.wholeInt == nil)
        #expect(!value.wholeText.isEmpty)
    }

    @Test("checked conversions round toward zero inside the range")
    func inRange() {
        #expect((-1.9).wholeInt64 == -1)
        #expect(59.99.wholeText == "59")
        #expect(Double(Int64.max / 2).wholeInt64 == Int64.max / 2 + 1)  // the nearest Double
    }

    static let t0: TimeInterval = 1_800_000_000

    static func options(leeway: Double) -> JWTValidationPolicy {
        JWTValidationPolicy(clock: { Date(timeIntervalSince1970: t0) }, leeway: leeway)
    }

    @Test("a NaN or negative leeway counts as 0: a token expired 10 s ago is refused", arguments: [Double.nan, -5, -Double.infinity])
    func badLeewayIsStrict(_ leeway: Double) {
        let claims = JWTClaims(["exp": .integer(Int64(Self.t0) - 10)])
        expectCode(.expired) { try claims.validate(Self.options(leeway: leeway)) }
        let future = JWTClaims(["nbf": .integer(Int64(Self.t0) + 10)])
        expectCode(.notYetValid) { try future.validate(Self.options(leeway: leeway)) }
    }

    @Test("a huge leeway counts as one day: a token expired two days ago is refused", arguments: [1e300, Double.infinity, 1e20])
    func hugeLeewayIsClamped(_ leeway: Double) {
        let claims = JWTClaims(["exp": .integer(Int64(Self.t0) - 2 * 86_400)])
        expectCode(.expired) { try claims.validate(Self.options(leeway: leeway)) }
        do { try claims.validate(Self.options(leeway: leeway)) } catch let error as JOSEError {
            #expect(error.reason.contains("leeway 86400 s"))
        } catch { Issue.record("unexpected \(error)") }
    }

    /// Outside the NumericDate range (0 ... 9999-12-31T23:59:59Z) a time claim is a claim type error
    /// (NumericDateRangeTests); judging it, and building its message, never traps.
    @Test(
        "time claims far outside Int64 are refused as claim type errors, and their messages are built without trapping",
        arguments: [1e300, -1e300, 1e27])
    func hugeTimes(_ exp: Double) {
        let claims = JWTClaims(["exp": .double(exp)])
        expectCode(.claimTypeMismatch) { try claims.validate(Self.options(leeway: 60)) }
        let issued = JWTClaims(["iat": .double(1e300)])
        expectCode(.claimTypeMismatch) { try issued.validate(Self.options(leeway: 60)) }
    }
}
