import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One object of RFC 9396 `authorization_details`: a `type` (REQUIRED, a string) and the members that type
/// defines (`locations`, `actions`, `datatypes`, `identifier`, `privileges`, or any other), kept as JSON in
/// document order. Build one from raw JSON (``init(json:)``, ``init(type:members:)``) or from your own
/// `Encodable` type (``init(_:)``); read it back typed with ``decode(_:)``.
///
/// Used in authorization requests, PAR and request objects (`LoginRequest.authorizationDetails` in OIDC), in token
/// responses (`TokenResponse.authorizationDetails`), and on the resource-server side in RFC 9068 access tokens
/// and introspection answers.
public struct AuthorizationDetail: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `type`: what kind of authorization this object describes.
    public let type: String
    /// The whole object, `type` included.
    public let object: JSONObject

    /// An object from raw JSON.
    /// - Throws: ``OIDCError`` `.invalidAuthorizationDetails` without a non-empty string `type`.
    public init(json object: JSONObject) throws {
        guard let type = object["type"]?.stringValue, !type.isEmpty else {
            throw OIDCError(.invalidAuthorizationDetails, "an authorization_details object has no \"type\" string (RFC 9396 §2)")
        }
        self.type = type
        self.object = object
    }

    /// An object of `type` with other `members` (a `type` among them must be the same).
    /// - Throws: ``OIDCError`` `.invalidAuthorizationDetails` for an empty type or a conflicting `type` member.
    public init(type: String, members: JSONObject = JSONObject()) throws {
        if let other = members["type"], other != .string(type) {
            throw OIDCError(.invalidAuthorizationDetails, "the members name another \"type\" than \"\(type.prefix(64))\"")
        }
        var object = JSONObject()
        object["type"] = .string(type)
        for member in members where member.name != "type" { object[member.name] = member.value }
        try self.init(json: object)
    }

    /// An object from your own `Encodable` type, which must encode a `type` string member (members in name order,
    /// so the same value always gives the same JSON).
    /// - Throws: ``OIDCError`` `.invalidAuthorizationDetails` when it does not encode to a JSON object with `type`.
    public init<Value: Encodable>(_ value: Value) throws {
        let bytes: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys  // the same value always sends the same text
            bytes = Array(try encoder.encode(value))
        } catch {
            throw OIDCError(.invalidAuthorizationDetails, "the authorization detail could not be encoded")
        }
        guard let object = try? JSONParser.parseObject(bytes, what: "an authorization detail") else {
            throw OIDCError(.invalidAuthorizationDetails, "the authorization detail does not encode to a JSON object")
        }
        try self.init(json: object)
    }

    /// This object decoded as your own type (e.g. after picking it by ``type``).
    /// - Throws: ``OIDCError`` `.invalidAuthorizationDetails` naming the type when it does not decode.
    public func decode<Value: Decodable>(_ valueType: Value.Type) throws -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: Data(JSONValue.object(object).jsonString().utf8))
        } catch {
            throw OIDCError(.invalidAuthorizationDetails, "the \"\(type.prefix(64))\" authorization detail does not decode as \(Value.self)")
        }
    }

    /// Decodes from any JSON object with a `type` string.
    public init(from decoder: any Decoder) throws {
        guard case .object(let object) = try AnyJSON(from: decoder).value else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a JSON object"))
        }
        do {
            try self.init(json: object)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no \"type\" string"))
        }
    }

    /// Encodes ``object``.
    public func encode(to encoder: any Encoder) throws { try AnyJSON(.object(object)).encode(to: encoder) }

    /// The object as compact JSON.
    public var description: String { object.jsonString() }
}

/// Reading and writing the `authorization_details` array (RFC 9396 §2): the one parser and serializer behind
/// requests, token responses, access tokens and introspection.
extension AuthorizationDetail {
    /// The parameter, claim and member name.
    public static let parameterName = "authorization_details"

    /// Parses a JSON array of objects each with a `type`.
    /// - Parameters:
    ///   - value: the member's value.
    ///   - what: where it came from, for the error reason (e.g. "the token response").
    /// - Throws: ``OIDCError`` `.invalidAuthorizationDetails` (not an array, an element without `type`).
    package static func parseArray(_ value: JSONValue, what: String) throws -> [AuthorizationDetail] {
        guard let array = value.arrayValue else {
            throw OIDCError(.invalidAuthorizationDetails, "\(what)'s authorization_details is not a JSON array")
        }
        return try array.map { element in
            guard let object = element.objectValue else {
                throw OIDCError(.invalidAuthorizationDetails, "\(what)'s authorization_details has an element that is not an object")
            }
            do {
                return try AuthorizationDetail(json: object)
            } catch {
                throw OIDCError(.invalidAuthorizationDetails, "\(what)'s authorization_details has an object without a \"type\" string")
            }
        }
    }

    /// Parses JSON text (e.g. a command-line argument) holding an array of objects each with a `type`.
    /// - Throws: ``OIDCError`` `.invalidAuthorizationDetails`.
    package static func parseArray(jsonText: String) throws -> [AuthorizationDetail] {
        let value: JSONValue
        do {
            value = try JSONParser.parse(Array(jsonText.utf8))
        } catch {
            throw OIDCError(.invalidAuthorizationDetails, "the authorization_details text is not JSON")
        }
        return try parseArray(value, what: "the text")
    }

    /// The array as a JSON value.
    package static func jsonValue(_ details: [AuthorizationDetail]) -> JSONValue { .array(details.map { .object($0.object) }) }

    /// The array as compact JSON, as sent in a request parameter.
    package static func compactJSON(_ details: [AuthorizationDetail]) -> String { jsonValue(details).jsonString() }

    /// The `authorization_details` parameter of a token request (RFC 9396 §6: client credentials, token exchange,
    /// refresh), for a grant's `additionalParameters`.
    public static func tokenRequestParameter(_ details: [AuthorizationDetail]) -> (name: String, value: String) {
        (parameterName, compactJSON(details))
    }
}

extension Array where Element == AuthorizationDetail {
    /// The objects of `type`, in order.
    public func ofType(_ type: String) -> [AuthorizationDetail] { filter { $0.type == type } }

    /// The objects of `type` decoded as your own type.
    /// - Throws: ``OIDCError`` `.invalidAuthorizationDetails` when one does not decode.
    public func decode<Value: Decodable>(_ valueType: Value.Type, ofType type: String) throws -> [Value] {
        try ofType(type).map { try $0.decode(valueType) }
    }

    /// The first of `types` that no object has, or `nil` when every one is granted.
    package func firstMissingType(of types: [String]) -> String? {
        let granted = Set(map(\.type))
        return types.first { !granted.contains($0) }
    }
}
