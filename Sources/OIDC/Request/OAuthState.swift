/// The `state` of an authorization request: an unguessable value that binds the redirect
/// to the browser session that started the login (RFC 6749 §10.12). Compare with
/// ``matches(_:)`` (constant time).
package struct OAuthState: RequestSecret {
    /// The value as sent in the request.
    package let value: String

    /// Wraps a state value (RFC 6749 Appendix A.5: one or more characters from U+0020 to U+007E).
    /// - Throws: ``OIDCError`` `.invalidSecretValue`.
    package init(_ value: String) throws {
        guard !value.isEmpty, value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw OIDCError(.invalidSecretValue, "state must be one or more visible ASCII characters (RFC 6749 Appendix A.5)")
        }
        self.value = value
    }

    /// A fresh state: 256 random bits as 43 Base64URL characters.
    /// - Throws: ``OIDCError`` `.randomGenerationFailed`.
    package static func random() throws -> OAuthState {
        OAuthState(unchecked: try RandomText.base64URL(byteCount: 32))
    }

    private init(unchecked value: String) { self.value = value }
}
