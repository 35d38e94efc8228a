import JOSE
import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The binding rule of a presented access token (RFC 9449 §7, RFC 8705 §3), the one source of truth for
/// every way a resource server learns a token's `cnf`: a JWT access token's claim
/// (``AccessTokenValidator/validate(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)``) and an
/// introspection answer's member (``TokenIntrospector/validate(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)``).
///
/// - `Bearer`: a token bound to a DPoP key (`cnf.jkt`) is refused; a token bound to a certificate
///   (`cnf.x5t#S256`) passes only with that client certificate.
/// - `DPoP`: exactly one `DPoP` header; the token must carry `cnf.jkt`, and the proof must pass the
///   ``DPoPProofValidator`` for the request, with `ath` over this token and a key whose thumbprint is `cnf.jkt`;
///   a certificate binding is checked as for `Bearer`.
enum TokenBinding {
    /// The request's `Authorization` scheme and token.
    /// - Throws: `.missingBearerToken` when it carries neither a `Bearer` nor a `DPoP` token; `.invalidBearerRequest`.
    static func credentials(_ headers: HeaderFields) throws -> (scheme: AuthorizationScheme, token: Substring) {
        guard let credentials = try BearerTokenExtractor.credentials(headers) else {
            throw OIDCError(.missingBearerToken, "the request carries no Bearer or DPoP access token")
        }
        return credentials
    }

    /// The one `DPoP` header of a request with the `DPoP` scheme (RFC 9449 §4.3 step 1).
    /// - Throws: `.dpopProofMissing` for none or more than one.
    static func proof(_ headers: HeaderFields) throws -> String {
        let (count, proofText) = BearerTokenExtractor.field(headers, named: "dpop")
        guard count == 1, let proofText else {
            throw OIDCError(.dpopProofMissing, "the DPoP scheme needs exactly one DPoP header field, the request has \(count)")
        }
        return proofText
    }

    /// The rule for a token presented with the `Bearer` scheme, given its `cnf` (`nil`: unbound).
    /// - Throws: `.certificateBoundToken` (bound to a certificate that is absent or another), then
    ///   `.dpopBoundTokenAsBearer` (bound to a DPoP key: a bearer presentation proves none).
    static func checkBearer(_ confirmation: TokenConfirmation?, clientCertificate: ClientCertificate) throws {
        guard let confirmation else { return }
        try confirmation.requireCertificate(clientCertificate)
        if confirmation.jwkThumbprint != nil {
            throw OIDCError(.dpopBoundTokenAsBearer, "the access token is bound to a DPoP key (cnf.jkt) but was presented as Bearer (RFC 9449 §7.1)")
        }
    }

    /// The rule for a token presented with the `DPoP` scheme, given its `cnf` (`nil`: unbound) and the request's proof.
    /// - Parameters:
    ///   - confirmation: the token's `cnf`.
    ///   - token: the access token as presented (its hash is the proof's `ath`).
    ///   - proof: the `DPoP` header's value (``proof(_:)``).
    ///   - proofs: the proof rules and their replay cache.
    ///   - method: the request's method (`htm`).
    ///   - url: the URL the request was sent to (`htu`).
    ///   - nonce: the nonce rule.
    ///   - clientCertificate: the connection's client certificate.
    /// - Returns: the verified proof; its key's thumbprint is `cnf.jkt`.
    /// - Throws: `.certificateBoundToken`, `.dpopTokenNotBound` (no `cnf.jkt`), the `dpop_proof_*` codes.
    static func checkDPoP(
        _ confirmation: TokenConfirmation?, token: Substring, proof: String, proofs: DPoPProofValidator,
        method: String, url: URL, nonce: DPoPProofValidator.NonceRule,
        clientCertificate: ClientCertificate
    ) async throws -> VerifiedDPoPProof {
        try confirmation?.requireCertificate(clientCertificate)
        guard let thumbprint = confirmation?.jwkThumbprint else {
            throw OIDCError(.dpopTokenNotBound, "the access token is bound to no DPoP key (no cnf.jkt) but was presented with the DPoP scheme")
        }
        return try await proofs.validate(
            proof, for: .request(method: method, uri: url), nonce: nonce,
            presenting: .accessTokenHash(DPoPAccessTokenHash.of(token), boundTo: .thumbprint(thumbprint)))
    }
}
