import OIDC

/// A table name, optionally schema-qualified (`schema.table`): each part 1–63
/// characters of ASCII letters, digits and `_`, not starting with a digit. It is
/// always sent quoted (`"schema"."table"`), so it is taken exactly as written
/// (case-sensitive) and can never change a statement's meaning.
public struct TableName: Sendable, Hashable, CustomStringConvertible {
    /// The name as given.
    public let name: String
    /// The quoted form put into statements.
    let quoted: String

    /// Validates `name`.
    /// - Throws: `invalid_table_name` naming the rule broken.
    public init(_ name: String) throws {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else {
            throw OIDCError(.invalidTableName, "a table name is `table` or `schema.table`")
        }
        for part in parts {
            let bytes = Array(part.utf8)
            guard (1...63).contains(bytes.count), let first = bytes.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
                bytes.allSatisfy({ Self.allowed.contains($0) })
            else {
                throw OIDCError(.invalidTableName, "each part of a table name is 1-63 ASCII letters, digits or _, not starting with a digit")
            }
        }
        self.name = name
        quoted = parts.map { "\"\($0)\"" }.joined(separator: ".")
    }

    private static let allowed = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_".utf8))

    /// The name as given.
    public var description: String { name }

    /// A quoted index or constraint name derived from the table's last part.
    func derived(_ suffix: String) -> String {
        let last = name.split(separator: ".").last.map(String.init) ?? name
        return "\"\(String(last.prefix(63 - suffix.count - 1)))_\(suffix)\""
    }
}
