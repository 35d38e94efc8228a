/// A JSON value as parsed by the strict parser of this module.
///
/// Numbers that are integers within `Int64` stay exact (`.integer`); all others
/// are `.double`. Objects keep their members in document order.
public enum JSONValue: Sendable, Hashable {
    /// `null`
    case null
    /// `true` or `false`
    case bool(Bool)
    /// An integer literal that fits in `Int64`.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object(JSONObject)

    /// The string, when this is a string.
    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    /// The Boolean, when this is a Boolean.
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The object, when this is an object.
    public var objectValue: JSONObject? { if case .object(let o) = self { return o }; return nil }
    /// The array, when this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// The number as a `Double`, when this is a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
    /// The number as an `Int64`, when this is an integer (or a double with an exact integer value).
    public var int64Value: Int64? {
        switch self {
        case .integer(let i): return i
        case .double(let d):
            guard d.rounded(.towardZero) == d, let i = Int64(exactly: d) else { return nil }
            return i
        default: return nil
        }
    }
    /// Whether this is `null`.
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .integer, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

/// One member of a JSON object.
public struct JSONMember: Sendable, Hashable {
    /// The member name.
    public var name: String
    /// The member value.
    public var value: JSONValue

    /// Creates a member.
    public init(name: String, value: JSONValue) {
        self.name = name
        self.value = value
    }
}

/// A JSON object: members in document order, unique names.
public struct JSONObject: Sendable, Hashable, Sequence {
    /// The members in order. (A struct rather than a tuple: arrays of tuples
    /// cost a runtime metadata lookup on every allocation.)
    public private(set) var members: [JSONMember]

    /// An empty object.
    public init() { members = [] }

    /// An object from members; a later duplicate name replaces the earlier value.
    public init(_ pairs: [(String, JSONValue)]) {
        members = []
        for (name, value) in pairs { self[name] = value }
    }

    init(uniqueMembers: [JSONMember]) { members = uniqueMembers }

    /// Appends a member whose name the caller knows is not present yet (no search of the members).
    mutating func appendUnique(_ name: String, _ value: JSONValue) { members.append(JSONMember(name: name, value: value)) }

    /// Reserves room for `count` members.
    mutating func reserveCapacity(_ count: Int) { members.reserveCapacity(count) }

    /// The value of a member, or `nil` when absent.
    public subscript(name: String) -> JSONValue? {
        get {
            for member in members where member.name == name { return member.value }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { $0.name == name }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(JSONMember(name: name, value: newValue))
            }
        }
    }

    /// Whether a member is named `name`: names of another UTF-8 length are passed over without a string comparison.
    func hasMember(named name: String) -> Bool {
        let length = name.utf8.count
        for member in members where member.name.utf8.count == length && member.name == name { return true }
        return false
    }

    /// The member names in order.
    public var names: [String] { members.map(\.name) }
    /// The number of members.
    public var count: Int { members.count }
    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// Iterates the members in order.
    public func makeIterator() -> IndexingIterator<[JSONMember]> { members.makeIterator() }

    /// Equal when both hold the same members, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.members.allSatisfy { rhs[$0.name] == $0.value }
    }

    /// Order-independent hash.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in members {
            var h = Hasher()
            h.combine(member.name)
            h.combine(member.value)
            combined ^= h.finalize()
        }
        hasher.combine(combined)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A Boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal (an object, in literal order).
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
    /// `nil` is JSON `null`.
    public init(nilLiteral: ()) { self = .null }
}
