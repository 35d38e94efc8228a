import JOSE

/// A secret value of an authorization request (`state`, `nonce`): compared in
/// constant time, encoded as its plain string so a pending login can be
/// persisted, and never shown by `description`, `debugDescription` or `dump`.
package protocol RequestSecret: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The value as sent in the request.
    var value: String { get }
    /// Wraps a value after checking it.
    init(_ value: String) throws
}

extension RequestSecret {
    /// Whether `candidate` equals this value, compared in constant time.
    package func matches(_ candidate: String) -> Bool { ConstantTime.equals(value, candidate) }

    /// Decodes from the plain string, validating it.
    package init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes as the plain string.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// `TypeName(<redacted>)`.
    package var description: String { "\(Self.self)(<redacted>)" }
    /// `TypeName(<redacted>)`.
    package var debugDescription: String { description }
    /// No children: `dump` shows nothing secret.
    package var customMirror: Mirror { Mirror(self, children: [:]) }
}
