#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// UTC dates and "expires in 4 min" / "expired 2 h ago" phrases.
enum TimeText {
    static func utc(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e11 else { return "out of range" }
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }

    /// "in 4 min" or "2 h ago".
    static func relative(_ seconds: Double, now: Double) -> String {
        let delta = seconds - now
        let span = abs(delta)
        let amount: String
        switch span {
        case ..<60: amount = "\(Int(span)) s"
        case ..<3600: amount = "\(Int(span / 60)) min"
        case ..<172_800: amount = "\(Int(span / 3600)) h"
        case ..<(86_400 * 730): amount = "\(Int(span / 86_400)) d"
        default: amount = "\(Int(span / (86_400 * 365.25))) years"
        }
        return delta >= 0 ? "in \(amount)" : "\(amount) ago"
    }

    /// The human phrase for a time claim.
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
}
