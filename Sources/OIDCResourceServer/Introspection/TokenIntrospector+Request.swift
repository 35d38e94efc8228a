import JOSE
import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TokenIntrospector {
    /// The rules of ``validate(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)``, unobserved:
    /// the credentials, the answer's checks (``activeAccessToken(_:)``), the binding (``TokenBinding``, the JWT
    /// path's rule) and the scopes, in the JWT path's order.
    func validateRequest(
        method: String, url: URL, headers: HeaderFields, requiredScopes: Set<String>,
        dpopNonce: DPoPProofValidator.NonceRule, clientCertificate: ClientCertificate
    ) async throws -> IntrospectedAccessToken {
        let (scheme, token) = try TokenBinding.credentials(headers)
        if scheme == .bearer {
            let info = try await activeAccessToken(String(token))
            try TokenBinding.checkBearer(try info.confirmation, clientCertificate: clientCertificate)
            try ScopeCheck.require(requiredScopes, granted: info.scopes)
            return IntrospectedAccessToken(introspection: info, scheme: .bearer, proof: nil)
        }
        // The DPoP scheme: exactly one proof (checked before the endpoint is asked), a token bound to its key.
        let proofText = try TokenBinding.proof(headers)
        let info = try await activeAccessToken(String(token))
        let proof = try await TokenBinding.checkDPoP(
            try info.confirmation, token: token, proof: proofText, proofs: proofs,
            method: method, url: url, nonce: dpopNonce, clientCertificate: clientCertificate)
        try ScopeCheck.require(requiredScopes, granted: info.scopes)
        return IntrospectedAccessToken(introspection: info, scheme: .dpop, proof: proof)
    }

    /// The refusal of a request this introspector refused with `error`, with `algs` from ``proofs``: the
    /// challenges ``AccessTokenRefusal`` gives the JWT path (`Bearer` and `DPoP`).
    /// - Parameters:
    ///   - error: what ``validate(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)`` threw.
    ///   - requestHeaders: the refused request's header fields.
    ///   - requiredScopes: the scopes the resource requires.
    ///   - dpopNonce: the nonce this server requires in proofs, if any.
    ///   - realm: `realm`, if any.
    package func refusal(
        for error: OIDCError, requestHeaders: HeaderFields, requiredScopes: Set<String> = [],
        dpopNonce: String? = nil, realm: String? = nil
    ) -> AccessTokenRefusal {
        AccessTokenRefusal(
            error: error, requestHeaders: requestHeaders, requiredScopes: requiredScopes,
            dpopAlgorithms: proofs.challengeAlgorithms, dpopNonce: dpopNonce, realm: realm)
    }
}
