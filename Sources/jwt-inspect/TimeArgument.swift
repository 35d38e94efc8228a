#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A time on the command line (`--exp`, `--nbf`, `--iat` of `sign`): `now`, relative to
/// now (`+15m`, `-1h`, `+30s`, `+2d`, `+90` seconds), Unix seconds (`1767225600`) or a UTC
/// date (`2026-01-01T00:00:00Z`, `2026-01-01`). The result is whole Unix seconds.
enum TimeArgument {
    /// The largest offset or time accepted (year 9999), so no arithmetic can overflow.
    static let limit: Int64 = 253_402_300_799

    static func parse(_ text: String, flag: String, now: Int64) throws(UsageError) -> Int64 {
        func bad() -> UsageError {
            UsageError("\(flag) takes now, +15m/-1h/+30s/+2d, Unix seconds or a UTC date like 2026-01-01T00:00:00Z, not \"\(text)\"")
        }
        if text == "now" { return now }
        if let sign = text.first, sign == "+" || sign == "-" {
            var digits = Substring(text.dropFirst())
            var unit: Int64 = 1
            if let last = digits.last, !last.isNumber {
                switch last {
                case "s": unit = 1
                case "m": unit = 60
                case "h": unit = 3600
                case "d": unit = 86400
                case "w": unit = 604_800
                default: throw bad()
                }
                digits = digits.dropLast()
            }
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits.count <= 12,
                let count = Int64(digits), count * unit <= limit
            else { throw bad() }
            let result = sign == "+" ? now + count * unit : now - count * unit
            guard result >= -limit, result <= limit else { throw bad() }
            return result
        }
        if text.allSatisfy({ $0.isASCII && $0.isNumber }), text.count <= 12, let seconds = Int64(text), seconds <= limit {
            return seconds
        }
        if let seconds = date(text) { return seconds }
        throw bad()
    }

    /// `YYYY-MM-DD`, optionally followed by `THH:MM:SS` and `Z`, as UTC.
    private static func date(_ text: String) -> Int64? {
        var body = Substring(text)
        if body.hasSuffix("Z") { body = body.dropLast() }
        let halves = body.split(separator: "T", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        func numbers(_ part: Substring, _ separator: Character, _ count: Int) -> [Int32]? {
            let pieces = part.split(separator: separator, omittingEmptySubsequences: false)
            guard pieces.count == count else { return nil }
            let values = pieces.compactMap { piece -> Int32? in
                guard (1...4).contains(piece.count), piece.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
                return Int32(piece)
            }
            return values.count == count ? values : nil
        }
        guard let day = numbers(halves[0], "-", 3), halves[0].count == 10 else { return nil }
        var clock: [Int32] = [0, 0, 0]
        if halves.count == 2 {
            guard let parsed = numbers(halves[1], ":", 3) else { return nil }
            clock = parsed
        }
        guard (1...12).contains(day[1]), (1...31).contains(day[2]), clock[0] < 24, clock[1] < 60, clock[2] < 61 else { return nil }
        var parts = tm()
        parts.tm_year = day[0] - 1900
        parts.tm_mon = day[1] - 1
        parts.tm_mday = day[2]
        parts.tm_hour = clock[0]
        parts.tm_min = clock[1]
        parts.tm_sec = clock[2]
        return Int64(timegm(&parts))
    }
}
