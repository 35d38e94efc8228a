import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Claim forms some providers send instead of OpenID Connect's: booleans as `"true"`/`"false"` (Apple)
/// and `updated_at` as an ISO 8601 string (Auth0). Read in those forms only when asked (a profile);
/// any other form is a `claim_type_mismatch`, as for the standard reading.
enum ProviderClaimForms {
    /// A boolean claim; with `strings`, the exact strings `"true"` and `"false"` too.
    static func bool(_ claims: JWTClaims, _ name: String, strings: Bool) throws -> Bool? {
        if strings, case .string(let text)? = claims[name] {
            switch text {
            case "true": return true
            case "false": return false
            default: throw OIDCError(.claimTypeMismatch, "claim \"\(name)\" is a string other than \"true\" or \"false\"")
            }
        }
        return try claims.claim(name, as: Bool.self)
    }

    /// A NumericDate claim; with `iso8601`, a UTC ISO 8601 string (`2024-05-01T10:20:30.123Z`) too.
    static func date(_ claims: JWTClaims, _ name: String, iso8601: Bool) throws -> Date? {
        if iso8601, case .string(let text)? = claims[name] {
            guard let date = parseISO8601(text) else {
                throw OIDCError(.claimTypeMismatch, "claim \"\(name)\" is a string that is not a UTC ISO 8601 date-time")
            }
            return date
        }
        return try claims.date(name)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (RFC 3339, UTC only), or `nil`.
    static func parseISO8601(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        let rest = bytes[19..<(bytes.count - 1)]
        if !rest.isEmpty {
            guard rest.first == UInt8(ascii: "."), rest.count >= 2, rest.count <= 10 else { return nil }
            var scale = 0.1
            for byte in rest.dropFirst() {
                guard (48...57).contains(byte) else { return nil }
                fraction += Double(byte - 48) * scale
                scale /= 10
            }
        }
        // Days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}

extension IDToken {
    /// Apple's `is_private_email` (the address is a private relay), read from a JSON boolean or from the
    /// strings `"true"`/`"false"` Apple sends; `nil` when absent.
    /// - Throws: ``/OIDCCore/OIDCError`` `.claimTypeMismatch` for any other form.
    public var isPrivateEmail: Bool? {
        get throws {
            do { return try ProviderClaimForms.bool(claims, "is_private_email", strings: true) } catch let error as JOSEError {
                throw IDToken.claimError(error)
            }
        }
    }
}
