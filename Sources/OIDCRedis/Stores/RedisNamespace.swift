import OIDC

/// The prefix of a store's keys (`NAMESPACE:…`): 1-128 characters of `A-Z a-z 0-9 : _ . -`, so keys of
/// different stores, or of several applications on one server, never meet.
enum RedisNamespace {
    private static let allowed = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:_.-".utf8))

    /// `namespace`, checked.
    /// - Throws: `invalid_redis_namespace`.
    static func check(_ namespace: String) throws -> String {
        guard (1...128).contains(namespace.utf8.count), namespace.utf8.allSatisfy({ allowed.contains($0) }) else {
            throw OIDCError(.invalidRedisNamespace, "a key namespace is 1-128 characters of A-Z a-z 0-9 : _ . -")
        }
        return namespace
    }

    /// Lowercase hexadecimal of `bytes` (hashed parts of keys).
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension RedisNamespace {
    /// The bytes of lowercase or uppercase hexadecimal `text`; `nil` when it is not.
    static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
