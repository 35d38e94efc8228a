import JOSE

/// How a PKCE code challenge is derived from the verifier (RFC 7636 §4.2).
package enum CodeChallengeMethod: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// `S256`: Base64URL(SHA-256(verifier)). The default, and the only one to use.
    case s256 = "S256"
    /// `plain`: the challenge is the verifier. Only for providers that cannot do `S256`; never chosen by default.
    case plain = "plain"

    /// The value as sent in `code_challenge_method`.
    package var description: String { rawValue }
}

/// Proof Key for Code Exchange (RFC 7636): the verifier kept by the client and the
/// challenge sent in the authorization request.
///
/// ``description`` shows the method and the challenge (public), never the verifier.
package struct PKCE: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret verifier, sent with the token request.
    package let verifier: CodeVerifier
    /// The challenge method.
    package let method: CodeChallengeMethod

    /// PKCE for a given verifier; `S256` unless `plain` is asked for by name.
    package init(verifier: CodeVerifier, method: CodeChallengeMethod = .s256) {
        self.verifier = verifier
        self.method = method
    }

    /// Fresh PKCE with a random verifier of `verifierLength` characters.
    /// - Throws: ``OIDCError`` `.invalidCodeVerifier`, `.randomGenerationFailed`.
    package static func random(method: CodeChallengeMethod = .s256, verifierLength: Int = 64) throws -> PKCE {
        PKCE(verifier: try CodeVerifier.random(length: verifierLength), method: method)
    }

    /// The `code_challenge` sent in the authorization request.
    package var challenge: String {
        switch method {
        case .s256: return Base64URL.encode(DigestAlgorithm.sha256.hash(Array(verifier.value.utf8)))
        case .plain: return verifier.value
        }
    }

    /// `PKCE(S256, challenge: ...)`; for `plain` the challenge is the verifier, so it is redacted too.
    package var description: String {
        method == .plain ? "PKCE(plain, challenge: <redacted>)" : "PKCE(S256, challenge: \(challenge))"
    }
    /// Same as ``description``.
    package var debugDescription: String { description }
    /// Only the method: `dump` shows nothing secret.
    package var customMirror: Mirror { Mirror(self, children: ["method": method]) }
}
