/// Checked conversions from `Double` to integers, for every number that comes from
/// outside (a token's NumericDate, a command-line value, a configured interval).
///
/// `Int(_:)` and `Int64(_:)` of a `Double` trap on NaN, on infinities and on values
/// beyond the integer's range, and JSON allows `1e300` or a 30-digit integer for `exp`:
/// code in this package converts through these instead, never through the trapping
/// initializers.
extension Double {
    /// The value rounded toward zero, or `nil` when it is NaN, infinite or outside `Int64`.
    package var wholeInt64: Int64? { Int64(exactly: rounded(.towardZero)) }

    /// The value rounded toward zero, or `nil` when it is NaN, infinite or outside `Int`.
    package var wholeInt: Int? { Int(exactly: rounded(.towardZero)) }

    /// Whole seconds as text for messages: `"60"` when the value fits in `Int64`,
    /// otherwise the number as Swift prints it (`"1e+30"`, `"nan"`, `"inf"`).
    package var wholeText: String { wholeInt64.map { String($0) } ?? "\(self)" }
}

/// The rule for a configured clock-skew leeway, shared by ``JWTValidationPolicy`` and
/// OIDC's ID Token validation: NaN or a negative value counts as 0 (so a bad value can
/// only make the time checks stricter, never switch them off), and a value above
/// ``maximum`` counts as ``maximum``.
package enum Leeway {
    /// The largest leeway honoured: one day, in seconds.
    package static let maximum: Double = 86_400

    /// `seconds` as the time checks use it.
    package static func effective(_ seconds: Double) -> Double {
        guard seconds > 0 else { return 0 }  // also NaN
        return Swift.min(seconds, maximum)
    }
}
