import JOSE
import OIDCCore

/// The `cnf` (confirmation) claim of an access token (RFC 7800 §3.1): the key or certificate
/// the token is bound to, from a JWT access token or an introspection answer (RFC 7662 §2.2 with RFC 9449 §6.2,
/// RFC 8705 §3.2). A bound token is accepted only from the holder of that key or certificate
/// (``ResourceGuard/check(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)``, for both).
public struct TokenConfirmation: Sendable, Hashable, CustomStringConvertible {
    /// `jkt`: the RFC 7638 SHA-256 thumbprint of the DPoP key the token is bound to (RFC 9449 §6.1).
    public let jwkThumbprint: String?
    /// `x5t#S256`: the Base64URL SHA-256 of the DER client certificate the token is bound to (RFC 8705 §3.1).
    public let certificateThumbprint: String?

    /// A confirmation from its members.
    package init(jwkThumbprint: String?, certificateThumbprint: String?) {
        self.jwkThumbprint = jwkThumbprint
        self.certificateThumbprint = certificateThumbprint
    }

    /// Whether the token is bound to anything this type knows (`jkt` or `x5t#S256`).
    public var isBound: Bool { jwkThumbprint != nil || certificateThumbprint != nil }

    /// e.g. `cnf(jkt: 0ZcO..., x5t#S256: none)` (thumbprints are public values).
    public var description: String {
        "cnf(jkt: \(jwkThumbprint ?? "none"), x5t#S256: \(certificateThumbprint ?? "none"))"
    }

    /// Reads a `cnf` value: an object whose `jkt` and `x5t#S256`, when present, are non-empty strings.
    /// - Throws: ``OIDC/OIDCError`` `.claimTypeMismatch` naming the member that is not.
    init(claim: JSONValue) throws {
        guard let object = claim.objectValue else {
            throw OIDCError(.claimTypeMismatch, "the access token's \"cnf\" is not a JSON object (RFC 7800 §3.1)")
        }
        func member(_ name: String) throws -> String? {
            guard let value = object[name] else { return nil }
            guard let text = value.stringValue, !text.isEmpty else {
                throw OIDCError(.claimTypeMismatch, "the access token's \"cnf\".\"\(name)\" is not a non-empty string")
            }
            return text
        }
        jwkThumbprint = try member("jkt")
        certificateThumbprint = try member("x5t#S256")
    }

    /// RFC 8705 §3: when the token is bound to a certificate (`x5t#S256`), `certificate` must be that one
    /// (the Base64URL SHA-256 of its DER, compared in constant time); a token not bound to a certificate passes.
    /// The rule every presentation applies, for JWT access tokens and introspection answers alike.
    /// - Throws: ``OIDC/OIDCError`` `.certificateBoundToken` when the certificate is missing or another.
    package func requireCertificate(_ certificate: ClientCertificate) throws {
        guard let expected = certificateThumbprint else { return }
        guard let presented = certificate.thumbprint else {
            throw OIDCError(
                .certificateBoundToken,
                "the access token is bound to a client certificate (cnf.x5t#S256): a certificate-bound token needs the client certificate")
        }
        guard ConstantTime.equals(presented, expected) else {
            throw OIDCError(.certificateBoundToken, "the client certificate is not the one the access token is bound to (cnf.x5t#S256)")
        }
    }
}
