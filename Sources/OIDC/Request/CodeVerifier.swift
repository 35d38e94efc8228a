/// A PKCE code verifier (RFC 7636 §4.1): 43 to 128 characters of `A–Z a–z 0–9 - . _ ~`.
///
/// A secret: ``description`` and ``debugDescription`` never show it. Encodes as its plain
/// string so a pending login can be persisted; it is sent later with the token request.
package struct CodeVerifier: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The shortest verifier RFC 7636 allows.
    package static let minimumLength = 43
    /// The longest verifier RFC 7636 allows.
    package static let maximumLength = 128

    /// The verifier text.
    package let value: String

    /// Wraps a verifier, checking its length and alphabet.
    /// - Throws: ``OIDCError`` `.invalidCodeVerifier`.
    package init(_ value: String) throws {
        let length = value.utf8.count
        guard (Self.minimumLength...Self.maximumLength).contains(length) else {
            throw OIDCError(.invalidCodeVerifier, "a code verifier has 43 to 128 characters, not \(length)")
        }
        guard value.utf8.allSatisfy(FormURLEncoding.isUnreserved) else {
            throw OIDCError(.invalidCodeVerifier, "a code verifier uses only A-Z a-z 0-9 - . _ ~")
        }
        self.value = value
    }

    /// A fresh verifier of `length` characters drawn uniformly from the whole RFC 7636 alphabet
    /// (64 characters carry about 386 bits).
    /// - Throws: ``OIDCError`` `.invalidCodeVerifier` for a length outside 43...128, `.randomGenerationFailed`.
    package static func random(length: Int = 64) throws -> CodeVerifier {
        guard (minimumLength...maximumLength).contains(length) else {
            throw OIDCError(.invalidCodeVerifier, "a code verifier has 43 to 128 characters, not \(length)")
        }
        return try CodeVerifier(RandomText.unreserved(length: length))
    }

    /// Decodes from the plain string, validating it.
    package init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes as the plain string.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// `CodeVerifier(<redacted>)`.
    package var description: String { "CodeVerifier(<redacted>)" }
    /// `CodeVerifier(<redacted>)`.
    package var debugDescription: String { description }
    /// No children: `dump` shows nothing secret.
    package var customMirror: Mirror { Mirror(self, children: [:]) }
}
