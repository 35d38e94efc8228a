import JOSE

/// What a client registered for a response the provider encrypts to it (OpenID Connect Dynamic
/// Client Registration §2: `id_token_encrypted_response_alg`/`_enc`, `userinfo_encrypted_response_alg`/`_enc`,
/// JARM's `authorization_encrypted_response_alg`/`_enc`, RFC 9701's `introspection_encrypted_response_alg`/`_enc`).
///
/// When a response is registered as encrypted, a plain one is refused, and the JWE must use exactly
/// these two algorithms.
public struct ResponseEncryption: Sendable, Hashable, CustomStringConvertible {
    /// The registered key management algorithm (`*_encrypted_response_alg`).
    public var algorithm: JWEKeyAlgorithm
    /// The registered content encryption (`*_encrypted_response_enc`); `nil` admits every supported one
    /// (when only the algorithm is known, e.g. from a provider's client settings).
    public var encryption: JWEContentEncryption?

    /// Creates the registration.
    /// - Parameters:
    ///   - algorithm: the key management algorithm.
    ///   - encryption: the content encryption; `A128CBC-HS256` when only the algorithm was registered
    ///     (the default of OpenID Connect Dynamic Client Registration §2); `nil` admits every supported one.
    public init(algorithm: JWEKeyAlgorithm, encryption: JWEContentEncryption? = .a128CBCHS256) {
        self.algorithm = algorithm
        self.encryption = encryption
    }

    /// `RSA-OAEP-256 + A256GCM`.
    public var description: String { "\(algorithm) + \(encryption?.rawValue ?? "any enc")" }

    /// The decryption policy admitting exactly the registered algorithms.
    /// - Parameter minimumRSAKeyBits: the smallest RSA modulus accepted.
    /// - Returns: the policy.
    package func policy(minimumRSAKeyBits: Int = 2048) -> JWEDecryptionPolicy {
        JWEDecryptionPolicy(allowedKeyAlgorithms: [algorithm], allowedContentEncryptions: encryption.map { [$0] }, minimumRSAKeyBits: minimumRSAKeyBits)
    }

    /// The policy for a response that may arrive encrypted: exactly the registered algorithms, or, when
    /// nothing was registered, the safe defaults (the algorithm still comes from the client's key).
    package static func policy(_ registered: ResponseEncryption?, minimumRSAKeyBits: Int) -> JWEDecryptionPolicy {
        registered?.policy(minimumRSAKeyBits: minimumRSAKeyBits) ?? JWEDecryptionPolicy(minimumRSAKeyBits: minimumRSAKeyBits)
    }
}
