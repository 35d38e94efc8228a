import JOSE

/// The form of the UserInfo answer the client registered (OpenID Connect Core §5.3.2, Dynamic Client
/// Registration §2: `userinfo_signed_response_alg`, `userinfo_encrypted_response_alg`/`_enc`).
///
/// - ``json``: plain JSON is expected; a signed JWT is still accepted once verified, and an encrypted one
///   once decrypted with the client's keys (a provider may answer so; it is never less checked).
/// - ``signed``: a JWT signed with the provider's keys is required; JSON is refused.
/// - ``encrypted(_:)``: a JWE with the registered algorithms is required (its plaintext JSON, or a signed JWT).
/// - ``signedAndEncrypted(_:)``: a signed JWT inside a JWE (RFC 7519 §5.2) is required.
///
/// For every form but ``json`` with no decryption key, the client asks with `Accept: application/jwt`.
public struct UserInfoFormat: Sendable, Hashable, CustomStringConvertible {
    /// Whether a signature is required.
    public let requiresSignature: Bool
    /// The registered encryption, when an encrypted answer is required.
    public let encryption: ResponseEncryption?

    /// JSON expected (the default registration).
    public static let json = UserInfoFormat(requiresSignature: false, encryption: nil)
    /// A signed JWT required (`userinfo_signed_response_alg` registered).
    public static let signed = UserInfoFormat(requiresSignature: true, encryption: nil)

    /// An encrypted answer required (`userinfo_encrypted_response_alg`/`_enc` registered, no signing algorithm).
    /// - Parameter encryption: the registered algorithms.
    /// - Returns: the format.
    public static func encrypted(_ encryption: ResponseEncryption) -> UserInfoFormat {
        UserInfoFormat(requiresSignature: false, encryption: encryption)
    }

    /// A signed, then encrypted answer required (both registered).
    /// - Parameter encryption: the registered algorithms.
    /// - Returns: the format.
    public static func signedAndEncrypted(_ encryption: ResponseEncryption) -> UserInfoFormat {
        UserInfoFormat(requiresSignature: true, encryption: encryption)
    }

    /// Whether JSON would be refused.
    public var requiresJWT: Bool { requiresSignature || encryption != nil }

    /// `json`, `signed`, `encrypted(RSA-OAEP-256 + A256GCM)`, `signed+encrypted(...)`.
    public var description: String {
        switch (requiresSignature, encryption) {
        case (false, nil): return "json"
        case (true, nil): return "signed"
        case (false, let encryption?): return "encrypted(\(encryption))"
        case (true, let encryption?): return "signed+encrypted(\(encryption))"
        }
    }
}
