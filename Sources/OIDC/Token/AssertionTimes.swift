#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// `iat` and `exp` of a JWT the client signs (JWT bearer assertion, request object), in whole
/// seconds through the package's checked conversions: an absurd clock or lifetime gives `nil`
/// for the caller's typed error, never a trap.
enum AssertionTimes {
    /// `iat` = `now` rounded toward zero, `exp` = `iat` + `lifetime` rounded by `rule`;
    /// `nil` when either is NaN, infinite or outside `Int64`, or their sum overflows.
    static func issuedAndExpiry(now: Date, lifetime: TimeInterval,
                                rounding rule: FloatingPointRoundingRule) -> (issuedAt: Int64, expiresAt: Int64)? {
        guard let issuedAt = now.timeIntervalSince1970.wholeInt64, let seconds = lifetime.rounded(rule).wholeInt64 else { return nil }
        let (expiresAt, overflow) = issuedAt.addingReportingOverflow(seconds)
        return overflow ? nil : (issuedAt, expiresAt)
    }
}
