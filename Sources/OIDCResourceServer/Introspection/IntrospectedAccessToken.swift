/// An access token accepted for one request by
/// ``TokenIntrospector/validate(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)``:
/// the introspection answer, the scheme the token came with, and its DPoP proof when the scheme was `DPoP`.
/// Holds no token text.
package struct IntrospectedAccessToken: Sendable, CustomStringConvertible {
    /// The authorization server's answer about the token (active, current, for this resource server,
    /// carrying the required scopes); its `cnf` (``TokenIntrospection/confirmation``), if any, was enforced.
    package let introspection: TokenIntrospection
    /// The `Authorization` scheme: `Bearer` only for a token bound to no DPoP key (`cnf.jkt`).
    package let scheme: AuthorizationScheme
    /// The DPoP proof: present exactly when ``scheme`` is `DPoP`; its key's thumbprint is the answer's `cnf.jkt`.
    package let proof: VerifiedDPoPProof?

    /// e.g. `DPoP TokenIntrospection(sub: "alice", ...) with VerifiedDPoPProof(ES256, ...)`.
    package var description: String {
        "\(scheme.rawValue) \(introspection)" + (proof.map { " with \($0)" } ?? "")
    }
}
