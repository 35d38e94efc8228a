import JOSE

/// The `nonce` of an OpenID Connect request: bound into the ID Token to stop replay
/// (OpenID Connect Core §3.1.2.1, §15.5.2).
///
/// A secret: ``description`` and ``debugDescription`` never show it; compare with ``matches(_:)``
/// (constant time). Encodes as its plain string so a pending login can be persisted.
public struct Nonce: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The value as sent in the request.
    public let value: String

    /// Wraps a nonce value: not empty, no control characters.
    /// - Throws: ``OIDCError`` `.invalidSecretValue`.
    public init(_ value: String) throws {
        guard !value.isEmpty, !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw OIDCError(.invalidSecretValue, "nonce must be non-empty and free of control characters")
        }
        self.value = value
    }

    /// A fresh nonce: 256 random bits as 43 Base64URL characters.
    /// - Throws: ``OIDCError`` `.randomGenerationFailed`.
    public static func random() throws -> Nonce {
        Nonce(unchecked: try RandomText.base64URL(byteCount: 32))
    }

    private init(unchecked value: String) { self.value = value }

    /// Whether `candidate` (e.g. an ID Token's `nonce` claim) equals this nonce, compared in constant time.
    public func matches(_ candidate: String) -> Bool { ConstantTime.equals(value, candidate) }

    /// Decodes from the plain string, validating it.
    public init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes as the plain string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// `Nonce(<redacted>)`.
    public var description: String { "Nonce(<redacted>)" }
    /// `Nonce(<redacted>)`.
    public var debugDescription: String { description }
    /// No children: `dump` shows nothing secret.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
