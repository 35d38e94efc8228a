#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HTTP header fields of a ``TransportRequest`` or ``TransportResponse``: ordered, names compared
/// case-insensitively (as swift-http-types' `HTTPFields`), several fields of one name kept.
public struct HeaderFields: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in order.
    public private(set) var fields: [(name: String, value: String)] = []

    /// No fields.
    public init() {}
    /// Fields from a literal.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name, value) }
    }

    /// The first value of a field, or `nil`.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.lowercased() == name.lowercased() }?.value }
        set {
            fields.removeAll { $0.name.lowercased() == name.lowercased() }
            if let newValue { fields.append((name, newValue)) }
        }
    }
    /// All values of a field.
    public func values(for name: String) -> [String] { fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value) }
    /// Appends a field (keeping existing ones of the same name).
    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }
    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// Same fields in the same order (names case-insensitively).
    public static func == (lhs: HeaderFields, rhs: HeaderFields) -> Bool {
        lhs.fields.count == rhs.fields.count && zip(lhs.fields, rhs.fields).allSatisfy { $0.name.lowercased() == $1.name.lowercased() && $0.value == $1.value }
    }
    /// Hashes names (lower-cased) and values.
    public func hash(into hasher: inout Hasher) {
        for field in fields { hasher.combine(field.name.lowercased()); hasher.combine(field.value) }
    }
}
