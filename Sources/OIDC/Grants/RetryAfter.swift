#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A polling grant's token endpoint asked for a pause: HTTP 503 or 429 with `Retry-After` (RFC 9110 §10.2.3).
///
/// The one `Retry-After` reader of the package: the polling grants (``seconds(_:now:)``, which throws) and the
/// Shared Signals poll client (``wait(_:now:)``, for which an unreadable value counts as absent).
package struct RetryAfter: Error, Sendable {
    /// Whole seconds to wait before the next request (never negative).
    package let seconds: Int
    /// The HTTP status that carried it.
    package let status: Int

    /// The wait a `Retry-After` value asks for at `now`: `delay-seconds`, or an HTTP date (IMF-fixdate,
    /// `Sun, 06 Nov 1994 08:49:37 GMT`) rounded up to the next whole second; a date already past is 0.
    /// A number too large for the platform is `Int.max` (the caller's deadline ends the wait).
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidDecoupledResponse` for anything else (the obsolete RFC 850 and
    ///   asctime forms included), naming the header and never echoing more than 40 characters of it.
    package static func seconds(_ value: String, now: Date) throws -> Int {
        guard let seconds = wait(value, now: now) else {
            throw OIDCError(
                .invalidDecoupledResponse,
                "the token endpoint's Retry-After \"\(trimmed(value).prefix(40))\" is neither a number of seconds nor an HTTP date (RFC 9110 §10.2.3)")
        }
        return seconds
    }

    /// The wait a `Retry-After` value asks for at `now`, as ``seconds(_:now:)`` reads it, or `nil` when it is neither
    /// `delay-seconds` nor an IMF-fixdate.
    package static func wait(_ value: String, now: Date) -> Int? {
        let text = trimmed(value)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return Int(text) ?? Int.max
        }
        guard let date = httpDate(text) else { return nil }
        let delta = date.timeIntervalSince(now).rounded(.up)
        guard delta > 0 else { return 0 }
        return delta < Double(Int32.max) ? Int(delta) : Int(Int32.max)
    }

    private static func trimmed(_ value: String) -> String {
        String(value.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// An IMF-fixdate (RFC 9110 §5.6.7), or `nil`.
    static func httpDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let days = ["Mon,", "Tue,", "Wed,", "Thu,", "Fri,", "Sat,", "Sun,"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, days.contains(parts[0]), parts[5] == "GMT", parts[1].utf8.count == 2, parts[3].utf8.count == 4,
            let day = digits(parts[1]), let monthIndex = months.firstIndex(of: parts[2]), let year = digits(parts[3])
        else { return nil }
        let time = parts[4].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard time.count == 3, time.allSatisfy({ $0.utf8.count == 2 }), let hour = digits(time[0]), let minute = digits(time[1]),
            let second = digits(time[2]), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days from 1970-01-01 to the civil date (Howard Hinnant's algorithm), all in small integers.
        let month = monthIndex + 1
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let epochDays = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(epochDays * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static func digits(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }
}
