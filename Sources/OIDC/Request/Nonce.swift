/// The `nonce` of an OpenID Connect request: bound into the ID Token to stop replay
/// (OpenID Connect Core §3.1.2.1, §15.5.2). Compare with ``matches(_:)`` (constant time).
package struct Nonce: RequestSecret {
    /// The value as sent in the request.
    package let value: String

    /// Wraps a nonce value: not empty, no control characters.
    /// - Throws: ``OIDCError`` `.invalidSecretValue`.
    package init(_ value: String) throws {
        guard !value.isEmpty, !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw OIDCError(.invalidSecretValue, "nonce must be non-empty and free of control characters")
        }
        self.value = value
    }

    /// A fresh nonce: 256 random bits as 43 Base64URL characters.
    /// - Throws: ``OIDCError`` `.randomGenerationFailed`.
    package static func random() throws -> Nonce {
        Nonce(unchecked: try RandomText.base64URL(byteCount: 32))
    }

    private init(unchecked value: String) { self.value = value }
}
