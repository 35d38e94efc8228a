#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// How ``OIDCClient/startLogin(_:requestObject:)`` sends a login's authorization request as a request
/// object (OpenID Connect Core §6, RFC 9101): signed by the client (or, named as such, unsigned), optionally
/// encrypted to the provider, and passed by value (`request`) or by reference (`request_uri`).
public struct RequestObjectOptions: Sendable {
    /// How the request object is signed.
    public enum Signature: Sendable {
        /// Signed with the client's private `key` and `algorithm` (the registered `request_object_signing_alg`).
        case signed(key: JWK, algorithm: JWSAlgorithm)
        /// `alg: none` (OpenID Connect Core §6.1): nothing proves the request comes from the client. Only for a
        /// client registered with `request_object_signing_alg: none`; a provider that requires signed request
        /// objects refuses it. Combined with encryption it still hides the request from the browser.
        case unsignedWithoutClientProof
    }

    /// Where the provider reads the request object.
    public enum Delivery: Sendable {
        /// In the authorization URL's `request` parameter.
        case byValue
        /// At a URL the client serves, passed as `request_uri` (OpenID Connect Core §6.2, RFC 9101 §5.2).
        /// `publish` stores the request object where the provider can fetch it (for at least the request
        /// object's lifetime, served as `application/oauth-authz-req+jwt`) and returns that URL, which must be
        /// `https` (`http` only on a loopback host) and should be unguessable.
        case byReference(publish: @Sendable (_ requestObject: String) async throws -> URL)
    }

    /// How the request object is signed.
    public var signature: Signature
    /// The registered `request_object_encryption_alg`/`_enc`; `nil` (default): not encrypted.
    public var encryption: RequestObjectEncryption?
    /// By value (default) or by reference.
    public var delivery: Delivery
    /// Seconds from `iat` to `exp` (default 300; at most ``RequestObject/maximumLifetime``).
    public var lifetime: TimeInterval

    /// Creates the options.
    /// - Parameters:
    ///   - signature: how the request object is signed.
    ///   - encryption: the encryption to the provider; `nil` (default): none.
    ///   - delivery: `.byValue` (default) or `.byReference(publish:)`.
    ///   - lifetime: seconds from `iat` to `exp` (default 300).
    public init(signature: Signature, encryption: RequestObjectEncryption? = nil, delivery: Delivery = .byValue,
                lifetime: TimeInterval = 300) {
        self.signature = signature
        self.encryption = encryption
        self.delivery = delivery
        self.lifetime = lifetime
    }
}

/// The algorithms a request object is encrypted with (`request_object_encryption_alg`/`_enc`), to the
/// provider's current encryption key.
public struct RequestObjectEncryption: Sendable, Hashable {
    /// The key management algorithm; `nil`: `RSA-OAEP-256` for an RSA key, `ECDH-ES` for an EC key.
    public var algorithm: JWEKeyAlgorithm?
    /// The content encryption (default `A128CBC-HS256`, the registration default).
    public var encryption: JWEContentEncryption

    /// Creates the choice.
    /// - Parameters:
    ///   - algorithm: the registered `request_object_encryption_alg`; `nil` (default): chosen by the provider key's type.
    ///   - encryption: the registered `request_object_encryption_enc` (default `A128CBC-HS256`).
    public init(algorithm: JWEKeyAlgorithm? = nil, encryption: JWEContentEncryption = .a128CBCHS256) {
        self.algorithm = algorithm
        self.encryption = encryption
    }
}
