import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A successful token response (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
///
/// `Codable` with the OAuth member names plus `expires_at`, so a token set can
/// be stored and resumed. `description` never shows a token.
public struct TokenResponse: Sendable, Codable, CustomStringConvertible, CustomReflectable {
    /// `access_token`
    public var accessToken: String
    /// `token_type` as sent (compare with ``isBearer``).
    public var tokenType: String
    /// `expires_in`, seconds.
    public var expiresIn: Int?
    /// When the access token expires: `expires_in` added to the injected clock at receipt.
    public var expiresAt: Date?
    /// `refresh_token`
    public var refreshToken: String?
    /// `id_token`
    public var idToken: String?
    /// `scope`
    public var scope: String?
    /// Every other member, verbatim.
    public var additionalFields: JSONObject

    /// Whether `token_type` is `Bearer` (case-insensitively, RFC 6749 §5.1).
    public var isBearer: Bool { tokenType.lowercased() == "bearer" }

    /// Creates a token set.
    public init(
        accessToken: String, tokenType: String = "Bearer", expiresIn: Int? = nil, expiresAt: Date? = nil,
        refreshToken: String? = nil, idToken: String? = nil, scope: String? = nil, additionalFields: JSONObject = JSONObject()
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.additionalFields = additionalFields
    }

    static let knownMembers: Set<String> = ["access_token", "token_type", "expires_in", "refresh_token", "id_token", "scope", "expires_at"]

    /// Reads a token endpoint's JSON object; `receivedAt` turns `expires_in` into ``expiresAt``.
    init(json object: JSONObject, receivedAt: Date) throws {
        func string(_ name: String, required: Bool) throws -> String? {
            guard let value = object[name], !value.isNull else {
                if required { throw OIDCError(.invalidTokenResponse, "the token response has no \"\(name)\"") }
                return nil
            }
            guard let text = value.stringValue else { throw OIDCError(.invalidTokenResponse, "\"\(name)\" in the token response is not a string") }
            return text
        }
        accessToken = try string("access_token", required: true) ?? ""
        tokenType = try string("token_type", required: true) ?? ""
        refreshToken = try string("refresh_token", required: false)
        idToken = try string("id_token", required: false)
        scope = try string("scope", required: false)
        if let value = object["expires_in"], !value.isNull {
            // Some providers send the number as a string.
            guard let seconds = value.int64Value ?? value.stringValue.flatMap({ Int64($0) }), seconds >= 0 else {
                throw OIDCError(.invalidTokenResponse, "\"expires_in\" in the token response is not a non-negative integer")
            }
            expiresIn = Int(seconds)
            expiresAt = receivedAt.addingTimeInterval(TimeInterval(seconds))
        } else if let at = object["expires_at"]?.doubleValue {
            expiresAt = Date(timeIntervalSince1970: at)
        }
        var extra = JSONObject()
        for member in object where !Self.knownMembers.contains(member.name) { extra[member.name] = member.value }
        additionalFields = extra
    }

    /// Whole Unix seconds, clamped to `Int64` (a huge `expires_in` or stored `expires_at`
    /// would make `Int64(_:)` trap).
    static func unixSeconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.towardZero)
        if seconds.isNaN { return 0 }
        return Int64(exactly: seconds) ?? (seconds > 0 ? .max : .min)
    }

    /// Reads the stored JSON form (``jsonObject``): `expires_at` is kept as stored.
    public init(storedJSON object: JSONObject) throws {
        try self.init(json: object, receivedAt: Date())
        if let at = object["expires_at"]?.doubleValue { expiresAt = Date(timeIntervalSince1970: at) }
    }

    /// The stored JSON form: the OAuth members plus `expires_at` (Unix seconds) and the extra fields.
    public var jsonObject: JSONObject {
        var object = additionalFields
        object["access_token"] = .string(accessToken)
        object["token_type"] = .string(tokenType)
        if let expiresIn { object["expires_in"] = .integer(Int64(expiresIn)) }
        if let expiresAt { object["expires_at"] = .integer(Self.unixSeconds(expiresAt)) }
        if let refreshToken { object["refresh_token"] = .string(refreshToken) }
        if let idToken { object["id_token"] = .string(idToken) }
        if let scope { object["scope"] = .string(scope) }
        return object
    }

    /// Decodes the stored JSON form (extra members kept, unknown ones ignored).
    public init(from decoder: any Decoder) throws {
        guard let object = try AnyJSON(from: decoder).value.objectValue else {
            throw OIDCError(.invalidTokenResponse, "stored tokens must be a JSON object")
        }
        try self.init(storedJSON: object)
    }

    /// Encodes the stored JSON form.
    public func encode(to encoder: any Encoder) throws {
        try AnyJSON(.object(jsonObject)).encode(to: encoder)
    }

    /// e.g. `TokenResponse(Bearer, expires_at: 1700000000, refresh_token: yes, id_token: yes)`; never the tokens.
    public var description: String {
        let expiry = expiresAt.map { String(Self.unixSeconds($0)) } ?? "unknown"
        return
            "TokenResponse(\(tokenType), expires_at: \(expiry), refresh_token: \(refreshToken == nil ? "no" : "yes"), id_token: \(idToken == nil ? "no" : "yes"))"
    }
    /// No children: `dump` shows nothing secret.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
