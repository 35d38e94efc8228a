#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The NumericDate range of this package (RFC 7519 §2), the one rule every reader of a time claim applies
/// (``JWTClaims/date(_:)``, hence `exp`, `nbf`, `iat`, `auth_time`; introspection answers in
/// `OIDCResourceServer`): seconds from 0 (1970-01-01T00:00:00Z) to 253402300799
/// (9999-12-31T23:59:59Z), fractions allowed. Anything else (`1e30`, a negative number) is not a date
/// a token can mean, so it is a type error rather than "expires in 3e22 years".
package enum NumericDate {
    /// 9999-12-31T23:59:59Z.
    package static let latest: Double = 253_402_300_799
    /// How the range is named in error messages.
    package static let rangeText = "0 ... 253402300799 (1970-01-01T00:00:00Z ... 9999-12-31T23:59:59Z)"

    /// The date `seconds` after the epoch, or `nil` when it is NaN, infinite or outside the range.
    package static func date(seconds: Double) -> Date? {
        guard seconds >= 0, seconds <= latest else { return nil }  // false for NaN
        return Date(timeIntervalSince1970: seconds)
    }
}
