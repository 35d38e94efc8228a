import OIDC

/// One reply of a Redis or Valkey server (RESP2, and the RESP3 types a server may send).
package enum RedisValue: Sendable, Equatable {
    case simple(String)
    case error(String)
    case integer(Int64)
    case bulk([UInt8])
    case null
    case array([RedisValue])

    /// The bytes of a bulk or simple string; `nil` for a null; otherwise `invalid_redis_value`.
    package func bytes(_ what: String) throws -> [UInt8]? {
        switch self {
        case .bulk(let bytes): return bytes
        case .simple(let text): return Array(text.utf8)
        case .null: return nil
        default: throw OIDCError(.invalidRedisValue, "\(what): a string was expected")
        }
    }

    /// The text of a bulk or simple string (UTF-8); `nil` for a null.
    package func text(_ what: String) throws -> String? {
        guard let bytes = try bytes(what) else { return nil }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw OIDCError(.invalidRedisValue, "\(what): not UTF-8") }
        return text
    }

    /// An integer reply, or a string holding a decimal integer.
    package func integer(_ what: String) throws -> Int64 {
        switch self {
        case .integer(let value): return value
        case .bulk, .simple:
            guard let text = try text(what), let value = Int64(text) else { throw OIDCError(.invalidRedisValue, "\(what): an integer was expected") }
            return value
        default: throw OIDCError(.invalidRedisValue, "\(what): an integer was expected")
        }
    }

    /// The elements of an array reply (a null counts as empty).
    package func array(_ what: String) throws -> [RedisValue] {
        switch self {
        case .array(let values): return values
        case .null: return []
        default: throw OIDCError(.invalidRedisValue, "\(what): an array was expected")
        }
    }
}

/// RESP encoding of commands and an incremental, bounded parser of replies. Nothing a server sends
/// can crash it: lengths, counts and depth are checked, numbers parsed strictly.
package enum RESP {
    /// The largest bulk string accepted (a stored payload is far smaller).
    package static let maxBulkBytes = 16 << 20
    /// The most elements of one array.
    package static let maxArrayCount = 1 << 20
    /// The deepest nesting of arrays.
    package static let maxDepth = 8

    /// A command as a RESP array of bulk strings.
    package static func encode(_ arguments: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            out += Array("$\(argument.count)\r\n".utf8)
            out += argument
            out += [13, 10]
        }
        return out
    }

    /// The reply starting at `start` in `buffer`, and where it ends; `nil` when more bytes are needed.
    /// - Throws: `invalid_redis_value` for bytes that are not RESP or exceed a limit.
    package static func parse(_ buffer: [UInt8], from start: Int, depth: Int = 0) throws -> (RedisValue, Int)? {
        guard depth <= maxDepth else { throw OIDCError(.invalidRedisValue, "the server's reply nests too deeply") }
        guard start < buffer.count else { return nil }
        guard let (line, afterLine) = try readLine(buffer, from: start + 1) else { return nil }
        switch buffer[start] {
        case UInt8(ascii: "+"): return (.simple(String(decoding: line, as: UTF8.self)), afterLine)
        case UInt8(ascii: "-"): return (.error(String(decoding: line, as: UTF8.self)), afterLine)
        case UInt8(ascii: ":"): return (.integer(try number(line)), afterLine)
        case UInt8(ascii: "_"): return (.null, afterLine)
        case UInt8(ascii: "#"): return (.integer(line == Array("t".utf8) ? 1 : 0), afterLine)
        case UInt8(ascii: "$"), UInt8(ascii: "="), UInt8(ascii: "!"):
            let length = try number(line)
            if length == -1 { return (.null, afterLine) }
            guard length >= 0, length <= maxBulkBytes else { throw OIDCError(.invalidRedisValue, "the server sent a string longer than allowed") }
            let end = afterLine + Int(length)
            guard end + 2 <= buffer.count else { return nil }
            guard buffer[end] == 13, buffer[end + 1] == 10 else { throw OIDCError(.invalidRedisValue, "a string of the server's reply is not terminated") }
            let bytes = Array(buffer[afterLine..<end])
            return (buffer[start] == UInt8(ascii: "!") ? .error(String(decoding: bytes, as: UTF8.self)) : .bulk(bytes), end + 2)
        case UInt8(ascii: "*"), UInt8(ascii: ">"), UInt8(ascii: "~"), UInt8(ascii: "%"):
            var count = try number(line)
            if count == -1 { return (.null, afterLine) }
            if buffer[start] == UInt8(ascii: "%") { count = count.multipliedReportingOverflow(by: 2).overflow ? -2 : count * 2 }
            guard count >= 0, count <= maxArrayCount else { throw OIDCError(.invalidRedisValue, "the server sent an array larger than allowed") }
            var elements: [RedisValue] = []
            var position = afterLine
            for _ in 0..<Int(count) {
                guard let (element, next) = try parse(buffer, from: position, depth: depth + 1) else { return nil }
                elements.append(element)
                position = next
            }
            return (.array(elements), position)
        case UInt8(ascii: ","): return (.simple(String(decoding: line, as: UTF8.self)), afterLine)
        case UInt8(ascii: "("): return (.simple(String(decoding: line, as: UTF8.self)), afterLine)
        default:
            throw OIDCError(.invalidRedisValue, "the server's reply is not RESP")
        }
    }

    /// The bytes up to the next CRLF (at most 64 KiB), and the index after it.
    private static func readLine(_ buffer: [UInt8], from start: Int) throws -> ([UInt8], Int)? {
        var index = start
        while index + 1 < buffer.count {
            if buffer[index] == 13 {
                guard buffer[index + 1] == 10 else { throw OIDCError(.invalidRedisValue, "a line of the server's reply is not terminated") }
                return (Array(buffer[start..<index]), index + 2)
            }
            index += 1
            guard index - start <= 65_536 else { throw OIDCError(.invalidRedisValue, "a line of the server's reply is too long") }
        }
        return nil
    }

    private static func number(_ line: [UInt8]) throws -> Int64 {
        guard !line.isEmpty, line.count <= 20, let value = Int64(String(decoding: line, as: UTF8.self)) else {
            throw OIDCError(.invalidRedisValue, "the server's reply holds an invalid number")
        }
        return value
    }
}
