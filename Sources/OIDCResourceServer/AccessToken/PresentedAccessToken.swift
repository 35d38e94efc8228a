import JOSE

/// An access token accepted for one request by
/// ``AccessTokenValidator/validate(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)``:
/// the validated token, the scheme it came with, and its DPoP proof when the scheme was `DPoP`.
/// Holds no token text.
package struct PresentedAccessToken: Sendable, CustomStringConvertible {
    /// The validated token (its `cnf`, if any, was checked against ``proof``).
    package let token: AccessToken
    /// The `Authorization` scheme: `Bearer` only for a token bound to no DPoP key.
    package let scheme: AuthorizationScheme
    /// The DPoP proof: present exactly when ``scheme`` is `DPoP`; its key's thumbprint is the token's `cnf.jkt`.
    package let proof: VerifiedDPoPProof?

    /// e.g. `DPoP AccessToken(iss: ..., sub: ...) with VerifiedDPoPProof(ES256, ...)`.
    package var description: String {
        "\(scheme.rawValue) \(token)" + (proof.map { " with \($0)" } ?? "")
    }
}

/// The client's TLS certificate, for tokens bound to it (`cnf.x5t#S256`, RFC 8705 §3).
public enum ClientCertificate: Sendable, Hashable {
    /// The request came without a client certificate (or the server does not pass it on): a
    /// certificate-bound token is refused (`.certificateBoundToken`).
    case notPresented
    /// The DER bytes of the certificate the client authenticated the TLS connection with; a token's
    /// `cnf.x5t#S256` must be their Base64URL SHA-256.
    case der([UInt8])

    /// The first `CERTIFICATE` block of PEM text (RFC 7468), e.g. the certificate a TLS terminator
    /// forwards, or a test's client certificate file. Only the armour and strict Base64 are checked
    /// here; the TLS layer verified the certificate itself.
    /// - Throws: `JOSEError` `.invalidPEM` when there is no well-formed `CERTIFICATE` block.
    public init(pem: String) throws {
        self = .der(try PEMBlock.der(of: pem, label: "CERTIFICATE"))
    }

    /// The `x5t#S256` a token bound to this certificate carries (RFC 8705 §3.1): the Base64URL SHA-256
    /// of the DER; `nil` when no certificate was presented.
    public var thumbprint: String? {
        guard case .der(let der) = self else { return nil }
        return Base64URL.encode(DigestAlgorithm.sha256.hash(der))
    }
}
