import JOSE

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// UTC dates and "expires in 4 min" / "expired 2 h ago" phrases. Presentation only:
/// whether a time is acceptable is decided by JOSE's `JWTClaims.validate`. Every
/// number is converted with JOSE's checked conversions (a token may carry `1e300`).
enum TimeText {
    static func utc(_ seconds: Double) -> String {
        guard abs(seconds) < 1e11, let whole = seconds.rounded(.down).wholeInt else { return "out of range" }
        var time = time_t(whole)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }

    /// "in 4 min" or "2 h ago".
    static func relative(_ seconds: Double, now: Double) -> String {
        let delta = seconds - now
        guard !delta.isNaN else { return "at an unknown time" }
        let span = abs(delta)
        let amount: String
        switch span {
        case ..<60: amount = "\(span.wholeText) s"
        case ..<3600: amount = "\((span / 60).wholeText) min"
        case ..<172_800: amount = "\((span / 3600).wholeText) h"
        case ..<(86_400 * 730): amount = "\((span / 86_400).wholeText) d"
        default: amount = "\((span / (86_400 * 365.25)).wholeText) years"
        }
        return delta >= 0 ? "in \(amount)" : "\(amount) ago"
    }

    /// The human phrase for a time claim in the Times section.
    static func phrase(for name: String, _ seconds: Double, now: Double) -> String {
        let relative = relative(seconds, now: now)
        switch name {
        case "exp": return seconds >= now ? "expires \(relative)" : "expired \(relative)"
        case "nbf": return seconds > now ? "valid \(relative)" : "valid since \(relative)"
        case "iat": return "issued \(relative)"
        case "auth_time": return "authenticated \(relative)"
        default: return relative
        }
    }

    /// The check line of a time claim the library accepted.
    static func passing(_ name: String, _ seconds: Double, now: Double) -> String {
        switch name {
        case "exp": return "not expired (\(relative(seconds, now: now)))"
        case "nbf": return "valid since \(relative(seconds, now: now))"
        default: return "issued \(relative(seconds, now: now))"
        }
    }

    /// The check line of a time claim the library refused.
    static func failing(_ name: String, _ seconds: Double, now: Double) -> String {
        switch name {
        case "exp": return "expired \(relative(seconds, now: now))"
        case "nbf": return "not valid until \(relative(seconds, now: now))"
        default: return "issued in the future (\(relative(seconds, now: now)))"
        }
    }
}
