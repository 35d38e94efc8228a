import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RequestObject {
    /// How a login's parameters travel as a request object: signed by the client, optionally encrypted to the
    /// provider, passed by value or by reference.
    ///
    /// Set it as ``LoginRequest/requestObject``. OpenID Connect Core §6 and RFC 9101 define request objects;
    /// a pushed login (PAR) always sends its request object by value.
    public struct Configuration: Sendable {
        /// How the request object is signed.
        public enum Signature: Sendable {
            /// Signed with the client's private `key` and `algorithm`, the registered `request_object_signing_alg`.
            case signed(key: JWK, algorithm: JWSAlgorithm)
            /// `alg: none`: nothing proves the request comes from the client.
            ///
            /// Only for a client registered with `request_object_signing_alg: none` (OpenID Connect Core §6.1); a
            /// provider that requires signed request objects refuses it. With encryption it still hides the request
            /// from the browser.
            case unsignedWithoutClientProof
        }

        /// Where the provider reads the request object.
        public enum Delivery: Sendable {
            /// In the authorization URL's `request` parameter.
            case byValue
            /// At a URL the client serves, passed as `request_uri` (OpenID Connect Core §6.2, RFC 9101 §5.2).
            ///
            /// `publish` stores the request object where the provider can fetch it for at least its lifetime,
            /// served as `application/oauth-authz-req+jwt`, and returns that URL. The URL must be `https`, or
            /// `http` on a loopback host, and should be unguessable.
            case byReference(publish: @Sendable (_ requestObject: String) async throws -> URL)
        }

        /// How the request object is signed.
        public var signature: Signature
        /// The encryption to the provider's current key; `nil`, the default, sends it unencrypted.
        public var encryption: Encryption?
        /// By value, the default, or by reference.
        public var delivery: Delivery
        /// Seconds from `iat` to `exp`: 300 by default, at most 3600.
        public var lifetime: TimeInterval

        /// A request object signed as `signature`, unencrypted and by value unless said otherwise.
        public init(
            signature: Signature, encryption: Encryption? = nil, delivery: Delivery = .byValue,
            lifetime: TimeInterval = 300
        ) {
            self.signature = signature
            self.encryption = encryption
            self.delivery = delivery
            self.lifetime = lifetime
        }
    }

    /// The algorithms a request object is encrypted with to the provider's current encryption key.
    ///
    /// They are the client's registered `request_object_encryption_alg` and `_enc`.
    public struct Encryption: Sendable, Hashable {
        /// The key management algorithm; `nil` picks `RSA-OAEP-256` for an RSA key and `ECDH-ES` for an EC key.
        public var algorithm: JWEKeyAlgorithm?
        /// The content encryption; `A128CBC-HS256` by default, the registration default.
        public var encryption: JWEContentEncryption

        /// The registered algorithms; the defaults follow the provider key's type and the registration default.
        public init(algorithm: JWEKeyAlgorithm? = nil, encryption: JWEContentEncryption = .a128CBCHS256) {
            self.algorithm = algorithm
            self.encryption = encryption
        }
    }
}
