import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The times the client writes into every JWT it signs — client assertions (`private_key_jwt`,
/// `client_secret_jwt`), DPoP proofs, request objects (JAR) and JWT bearer assertions — in whole
/// seconds through the package's checked conversions: an absurd clock or lifetime gives `nil`
/// for the caller's typed error, never a trap. One rule for all four.
///
/// `iat` (and `nbf` where one is sent) is **one second behind** the clock's whole second.
/// Servers compare these claims with their own clock in whole seconds, and some accept no
/// `iat`/`nbf` in the future at all (glewlwyd 2.7.5 in its DPoP check and its request-object
/// `nbf` check, out of the box). Their clock is often the kernel's coarse one (`time()`), which
/// on Linux reads the previous second for up to a scheduler tick (measured here: 6.5 ms) after
/// the precise clock has moved on; a proof made in those milliseconds, or by a client whose clock
/// is a fraction of a second ahead, was refused now and then ("Invalid DPoP"). One second back
/// absorbs both and costs one second of the server's acceptance window. `exp` is `iat` + lifetime.
package enum AssertionTimes {
    /// How far `iat`/`nbf` are set behind the clock's whole second.
    package static let backdating: Int64 = 1

    /// `iat` for a JWT signed at `now`: `now` rounded toward zero, minus ``backdating``;
    /// `nil` when `now` is NaN, infinite or outside `Int64`.
    package static func issuedAt(now: Date) -> Int64? {
        guard let second = now.timeIntervalSince1970.wholeInt64 else { return nil }
        let (issuedAt, overflow) = second.subtractingReportingOverflow(backdating)
        return overflow ? nil : issuedAt
    }

    /// ``issuedAt(now:)`` and `exp` = `iat` + `lifetime` rounded by `rule`; `nil` when either is
    /// NaN, infinite or outside `Int64`, or their sum overflows.
    package static func issuedAndExpiry(
        now: Date, lifetime: TimeInterval,
        rounding rule: FloatingPointRoundingRule
    ) -> (issuedAt: Int64, expiresAt: Int64)? {
        guard let issuedAt = issuedAt(now: now), let seconds = lifetime.rounded(rule).wholeInt64 else { return nil }
        let (expiresAt, overflow) = issuedAt.addingReportingOverflow(seconds)
        return overflow ? nil : (issuedAt, expiresAt)
    }
}
