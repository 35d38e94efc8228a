#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JWT claim set (RFC 7519 §4): typed getters for the registered claims and
/// typed access to any other claim.
///
/// An absent claim reads as `nil`; a claim of the wrong JSON type throws a
/// ``JOSEError`` with code `.claimTypeMismatch` naming the claim — never a silent `nil`.
public struct JWTClaims: Sendable {
    /// The claims as parsed JSON.
    public let object: JSONObject
    /// The payload bytes the claims were parsed from.
    public let payload: [UInt8]

    /// Parses a payload that must be a JSON object without duplicate claims.
    public init(payload: [UInt8], limits: JOSELimits = .default) throws {
        self.object = try JSONParser.parseObject(payload, limits: limits.tokenJSON, what: "the JWT payload")
        self.payload = payload
    }

    /// Wraps an object (for building tokens).
    public init(_ object: JSONObject) {
        self.object = object
        self.payload = Array(object.jsonString().utf8)
    }

    /// The raw JSON value of a claim.
    public subscript(name: String) -> JSONValue? { object[name] }

    /// `iss`
    public var issuer: String? { get throws { try string("iss") } }
    /// `sub`
    public var subject: String? { get throws { try string("sub") } }
    /// `jti`
    public var jwtID: String? { get throws { try string("jti") } }
    /// `aud`, a single string or an array of strings, always as an array.
    public var audience: [String]? {
        get throws {
            guard let value = object["aud"] else { return nil }
            if let single = value.stringValue { return [single] }
            if let array = value.arrayValue {
                let strings = array.compactMap(\.stringValue)
                if strings.count == array.count { return strings }
            }
            throw mismatch("aud", expected: "a string or an array of strings", found: value)
        }
    }
    /// `exp`
    public var expiresAt: Date? { get throws { try date("exp") } }
    /// `nbf`
    public var notBefore: Date? { get throws { try date("nbf") } }
    /// `iat`
    public var issuedAt: Date? { get throws { try date("iat") } }

    /// A string claim.
    public func string(_ name: String) throws -> String? {
        guard let value = object[name] else { return nil }
        guard let string = value.stringValue else { throw mismatch(name, expected: "a string", found: value) }
        return string
    }

    /// A NumericDate claim (seconds since the epoch, possibly fractional).
    public func date(_ name: String) throws -> Date? {
        guard let value = object[name] else { return nil }
        guard let seconds = value.doubleValue else { throw mismatch(name, expected: "a number (NumericDate)", found: value) }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Any claim decoded as `T` (`String`, `Int`, `Bool`, `[String]`, your own `Decodable`...).
    /// - Returns: `nil` when the claim is absent (a JSON `null` also reads as `nil` when `T` is not optional-aware).
    /// - Throws: `.claimTypeMismatch` naming the claim when it cannot be read as `T`.
    public func claim<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T? {
        guard let value = object[name] else { return nil }
        if let fast = value.fastCast(to: T.self) { return fast }
        if value.isNull { return nil }
        do {
            let wrapped = Array(("[" + value.jsonString() + "]").utf8)
            return try JSONDecoder().decode([T].self, from: Data(wrapped)).first
        } catch {
            throw mismatch(name, expected: "\(T.self)", found: value)
        }
    }

    /// Decodes the whole payload into a `Decodable` type of the caller's.
    /// - Throws: `.claimTypeMismatch` with the coding path of the first member that did not fit.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(payload))
        } catch let error as DecodingError {
            throw JOSEError(.claimTypeMismatch, "the claims do not decode as \(T.self): \(error.summary)", member: error.claimName)
        }
    }

    func mismatch(_ name: String, expected: String, found: JSONValue) -> JOSEError {
        JOSEError(.claimTypeMismatch, "claim \"\(name.jsonSafePrefix)\" must be \(expected), not a \(found.typeName)", member: name)
    }
}

extension JSONValue {
    /// Direct conversions for the common claim types, avoiding a JSON round trip.
    func fastCast<T>(to type: T.Type) -> T? {
        switch self {
        case .string(let s):
            return s as? T
        case .bool(let b):
            return b as? T
        case .integer(let i):
            if T.self == Int.self { return Int(exactly: i) as? T }
            if T.self == Int64.self { return i as? T }
            if T.self == Double.self { return Double(i) as? T }
            return nil
        case .double(let d):
            return T.self == Double.self ? d as? T : nil
        case .array(let elements) where T.self == [String].self:
            let strings = elements.compactMap(\.stringValue)
            return strings.count == elements.count ? strings as? T : nil
        default:
            return nil
        }
    }
}

extension DecodingError {
    var codingPath: [any CodingKey] {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            return context.codingPath
        @unknown default:
            return []
        }
    }
    var claimName: String? {
        if case .keyNotFound(let key, _) = self { return key.stringValue }
        return codingPath.first?.stringValue
    }
    var summary: String {
        let path = codingPath.map(\.stringValue).joined(separator: ".")
        switch self {
        case .typeMismatch(let type, _): return "\"\(path)\" is not \(type)"
        case .valueNotFound(let type, _): return "\"\(path)\" is null, expected \(type)"
        case .keyNotFound(let key, _): return "required claim \"\(key.stringValue)\" is missing"
        case .dataCorrupted: return "\"\(path)\" is malformed"
        @unknown default: return "decoding failed"
        }
    }
}
