#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one rule for renewing a token before it expires, shared by
/// ``ClientCredentialsTokenSource`` and the client-credentials session.
package enum RefreshMargin {
    /// The margin to apply to a token that lives `lifetime` seconds: `configured`, but at
    /// most half the lifetime, so a token shorter than the margin is still reused for half its
    /// life instead of being renewed on every request. Without a known lifetime, `configured`.
    /// Negative or NaN inputs count as 0.
    package static func effective(_ configured: TimeInterval, lifetime: TimeInterval?) -> TimeInterval {
        let margin = configured > 0 ? configured : 0
        guard let lifetime else { return margin }
        return min(margin, (lifetime > 0 ? lifetime : 0) / 2)
    }
}
