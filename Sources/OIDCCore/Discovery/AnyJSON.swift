import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Bridges a ``JSONValue`` through `Codable` (for members kept verbatim).
package struct AnyJSON: Codable, Sendable {
    package let value: JSONValue

    package init(_ value: JSONValue) { self.value = value }

    package init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(AnyJSON.self).value) }
            value = .array(elements)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyJSONKey.self) {
            var members = JSONObject()
            for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                members[key.stringValue] = try object.decode(AnyJSON.self, forKey: key).value
            }
            value = .object(members)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            value = .null
        } else if let bool = try? single.decode(Bool.self) {
            value = .bool(bool)
        } else if let integer = try? single.decode(Int64.self) {
            value = .integer(integer)
        } else if let double = try? single.decode(Double.self) {
            value = .double(double)
        } else {
            value = .string(try single.decode(String.self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch value {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let bool):
            var single = encoder.singleValueContainer()
            try single.encode(bool)
        case .integer(let integer):
            var single = encoder.singleValueContainer()
            try single.encode(integer)
        case .double(let double):
            var single = encoder.singleValueContainer()
            try single.encode(double)
        case .string(let string):
            var single = encoder.singleValueContainer()
            try single.encode(string)
        case .array(let elements):
            var array = encoder.unkeyedContainer()
            for element in elements { try array.encode(AnyJSON(element)) }
        case .object(let members):
            var object = encoder.container(keyedBy: AnyJSONKey.self)
            for member in members { try object.encode(AnyJSON(member.value), forKey: AnyJSONKey(member.name)) }
        }
    }
}

/// A coding key for any member name.
package struct AnyJSONKey: CodingKey {
    package let stringValue: String
    package var intValue: Int? { nil }
    package init(_ name: String) { stringValue = name }
    package init?(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { return nil }
}
