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
    /// The payload bytes the claims were parsed from.
    public let payload: [UInt8]
    /// Top-level members located by the validating pass.
    let index: JSONObjectIndex
    /// The object the claims were built from (``init(_:)``); `nil` for parsed claims, whose
    /// ``object`` is decoded on each read (verification allocates nothing for it).
    private let built: JSONObject?

    /// Parses a payload that must be a JSON object without duplicate claims.
    ///
    /// The whole payload is validated here as strictly as the package's JSON parser does
    /// (grammar, UTF-8, duplicate names at every level, depth and size). Values
    /// are decoded when read: a typed getter decodes only its own claim, and
    /// ``object`` builds the full tree once, on first use.
    public init(payload: [UInt8], limits: JOSELimits = .default) throws {
        self.index = try payload.withUnsafeBufferPointer {
            try JSONParser.indexObject(buffer: $0, limits: limits.tokenJSON, what: "the JWT payload")
        }
        self.payload = payload
        self.built = nil
    }

    /// The same claims in buffers of their own: copies of the result never touch the reference counts that copies of
    /// `self` share (a verified token kept for one thread; see `VerifiedTokenStore`'s per-thread front).
    package func detached() -> JWTClaims {
        JWTClaims(payload: payload.withUnsafeBufferPointer { Array($0) }, index: index.detached(), built: built)
    }

    private init(payload: [UInt8], index: JSONObjectIndex, built: JSONObject?) {
        self.payload = payload
        self.index = index
        self.built = built
    }

    /// Wraps an object (for building tokens).
    public init(_ object: JSONObject) {
        // The top-level members are located while they are written: the serializer's output is not indexed again.
        (self.payload, self.index) = JSONValue.compactJSONBytesIndexed(object)
        self.built = object
    }

    /// All claims as a JSON object, decoded from ``payload`` on each read (keep the result when you
    /// read it more than once; the typed getters and ``subscript(_:)`` decode only their claim).
    public var object: JSONObject {
        if let built { return built }
        // The payload was validated when the claims were created; parsing it again cannot fail.
        return (try? JSONParser.parseObject(payload, limits: JSONLimits(maxDepth: .max, maxBytes: .max), what: "claims")) ?? JSONObject()
    }

    /// The raw JSON value of a claim.
    public subscript(name: String) -> JSONValue? {
        payload.withUnsafeBufferPointer { buffer -> JSONValue? in
            guard let member = index.member(named: name, in: buffer) else { return nil }
            let slice = UnsafeBufferPointer(rebasing: buffer[member.valueStart..<member.valueEnd])
            if let scalar = JSONScalar.value(of: slice) { return scalar }
            // The value was validated with the payload; decoding it again cannot fail.
            return (try? JSONParser.parse(buffer: slice, limits: JSONLimits(maxDepth: .max, maxBytes: .max))) ?? .null
        }
    }

    /// The claim names, in document order.
    public var names: [String] { payload.withUnsafeBufferPointer { buffer in index.members.map { index.name(of: $0, in: buffer) } } }

    /// `iss`
    public var issuer: String? { get throws { try string("iss") } }
    /// `sub`
    public var subject: String? { get throws { try string("sub") } }
    /// `jti`
    public var jwtID: String? { get throws { try string("jti") } }
    /// `aud`, a single string or an array of strings, always as an array.
    public var audience: [String]? {
        get throws {
            guard let value = self["aud"] else { return nil }
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
        guard let value = self[name] else { return nil }
        guard let string = value.stringValue else { throw mismatch(name, expected: "a string", found: value) }
        return string
    }

    /// A NumericDate claim (seconds since the epoch, possibly fractional), from 0 to 253402300799
    /// (9999-12-31T23:59:59Z).
    /// - Throws: `.claimTypeMismatch` naming the claim when it is not a number, or a number outside that range.
    public func date(_ name: String) throws -> Date? {
        guard let value = self[name] else { return nil }
        guard let seconds = value.doubleValue else { throw mismatch(name, expected: "a number (NumericDate)", found: value) }
        guard let date = NumericDate.date(seconds: seconds) else {
            throw JOSEError(
                .claimTypeMismatch, "claim \"\(name.jsonSafePrefix)\" is a number outside the NumericDate range \(NumericDate.rangeText)",
                member: name)
        }
        return date
    }

    /// Any claim decoded as `T` (`String`, `Int`, `Bool`, `[String]`, your own `Decodable`...).
    /// - Returns: `nil` when the claim is absent (a JSON `null` also reads as `nil` when `T` is not optional-aware).
    /// - Throws: `.claimTypeMismatch` naming the claim when it cannot be read as `T`.
    public func claim<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T? {
        guard let value = self[name] else { return nil }
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
