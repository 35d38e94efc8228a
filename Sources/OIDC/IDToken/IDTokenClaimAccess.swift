import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension IDToken {
    /// Any claim, typed: `try idToken.claim("cmiInstanceId", as: String.self)`.
    /// - Returns: `nil` when the claim is absent (or JSON `null`).
    /// - Throws: ``/OIDCCore/OIDCError`` `.claimTypeMismatch` naming the claim when it is not a `T`.
    public func claim<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T? {
        do {
            return try claims.claim(name, as: type)
        } catch let error as JOSEError {
            throw Self.claimError(error)
        }
    }

    /// A claim nested in objects: `try idToken.claim(path: ["aka", "port_token"], as: String.self)`.
    /// - Returns: `nil` when any member on the path is absent.
    /// - Throws: `.claimTypeMismatch` naming the path when a step is not an object or the value not a `T`.
    public func claim<T: Decodable>(path: [String], as type: T.Type = T.self) throws -> T? {
        guard let first = path.first else { return nil }
        var value: JSONValue? = claims[first]
        var walked = first
        for name in path.dropFirst() {
            guard let current = value, !current.isNull else { return nil }
            guard let object = current.objectValue else {
                throw OIDCError(.claimTypeMismatch, "claim \"\(walked.prefix(64))\" must be an object, not a \(current.typeName)")
            }
            value = object[name]
            walked += "." + name
        }
        guard let value else { return nil }
        do {
            return try JWTClaims(["value": value]).claim("value", as: type)
        } catch {
            throw OIDCError(.claimTypeMismatch, "claim \"\(walked.prefix(64))\" has the wrong JSON type for \(T.self)")
        }
    }

    /// A claim named by the caller's own `CodingKey`:
    /// ```swift
    /// enum Keys: String, CodingKey { case session_state }
    /// let s: String? = try idToken.get(parameter: Keys.session_state)
    /// ```
    /// - Throws: `.claimTypeMismatch` naming the claim when it is not a `T`.
    public func get<Key: CodingKey, T: Decodable>(parameter key: Key) throws -> T? {
        try claim(key.stringValue, as: T.self)
    }

    /// A nested claim named by a path of the caller's `CodingKey`s.
    public func get<T: Decodable>(path: [any CodingKey]) throws -> T? {
        try claim(path: path.map(\.stringValue), as: T.self)
    }

    /// Decodes the whole payload into the caller's `Decodable` type.
    /// - Throws: `.claimTypeMismatch` naming the first member that did not fit.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        do {
            return try claims.decode(type)
        } catch let error as JOSEError {
            let at = error.member.map { " (at claim \"\($0.prefix(64))\")" } ?? ""
            throw OIDCError(.claimTypeMismatch, "the claims do not decode as \(T.self)\(at)", joseError: error)
        }
    }
}
