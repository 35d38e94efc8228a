import JOSE
import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The resource server's public validation entry points: each runs the validation and, when the
// validator has an ``OIDC/OIDCObserver``, records one event (accepted, or refused with the error's
// code). Without an observer the only extra work is the `nil` check (the access-token hot path).

extension TokenIntrospector {
    /// The answer for `token` (from the cache when fresh there). A call to the endpoint (not a cache hit)
    /// is recorded as ``/OIDCCore/OIDCEvent/Kind/introspection`` when `observer` is set.
    /// - Parameters:
    ///   - token: the token to ask about (a secret: never in errors, logs or events).
    ///   - hint: `token_type_hint` (`access_token`, `refresh_token`).
    /// - Throws: ``/OIDCCore/OIDCError``: endpoint errors (`oauth_error`, `transport`, ...),
    ///   `.invalidIntrospectionResponse`, `.unsignedIntrospectionResponse` (plain JSON where a JWT
    ///   answer is required), JWT-answer verification errors.
    public func introspect(_ token: String, hint: String? = nil) async throws -> IntrospectionResult {
        guard observer != nil else { return try await introspectToken(token, hint: hint) }
        if let cached = await cache?.result(for: token, in: cachePartition) { return cached }
        return try await observer.observe(.introspection, origin: OIDCEvent.origin(of: endpoint)) {
            try await introspectToken(token, hint: hint)
        }
    }

    /// Introspects `token`, presented as `Bearer` without a client certificate, and requires it an access token,
    /// active, current, bound to nothing and carrying `requiredScopes`.
    ///
    /// Checks, on every call (cached answers included): `active`, the answer's `token_type` absent or one of
    /// ``accessTokenTypes``, `exp` and `nbf` with the leeway, the ``audience`` rule, the answer's `cnf` (a token
    /// bound to a DPoP key or a certificate is refused: a bearer presentation proves neither; a server that takes
    /// `DPoP` or client certificates calls ``validate(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)``),
    /// and the scopes. Recorded as ``OIDC/OIDCEvent/Kind/accessTokenValidation`` when ``observer`` is set.
    /// - Parameters:
    ///   - token: the access token (a secret).
    ///   - requiredScopes: scopes the token must carry.
    /// - Returns: the answer, a ``TokenIntrospection``.
    /// - Throws: ``OIDC/OIDCError`` `.inactiveToken`, `.unexpectedTokenType` (the answer is about a token
    ///   that is not an access token), `.expired`, `.notYetValid`, `.audienceMismatch`, `.claimTypeMismatch`
    ///   (a malformed `cnf`), `.dpopBoundTokenAsBearer` (`cnf.jkt`), `.certificateBoundToken` (`cnf.x5t#S256`),
    ///   `.insufficientScope`, and the errors of ``introspect(_:hint:)``.
    package func validate(_ token: String, requiredScopes: Set<String> = []) async throws -> TokenIntrospection {
        try await observer.observe(.accessTokenValidation, origin: OIDCEvent.origin(of: endpoint)) {
            try await validateToken(token, requiredScopes: requiredScopes)
        }
    }

    /// Validates the access token of a request by introspection, as a resource server accepting both `Bearer` and
    /// `DPoP` must (RFC 9449 §7): the one call that reads `Authorization` and `DPoP` itself and enforces the
    /// answer's `cnf` (RFC 9449 §6.2, RFC 8705 §3.2) with the rule ``AccessTokenValidator`` applies to a JWT's.
    ///
    /// - `Authorization: Bearer <token>`: refused when the answer binds the token to a DPoP key (`cnf.jkt`).
    /// - `Authorization: DPoP <token>` with exactly one `DPoP: <proof>` header (checked before the endpoint is
    ///   asked): the answer must carry `cnf.jkt`, and the proof must pass ``proofs`` for `method` and `url` (its
    ///   `htu` compared after normalization), with `ath` of this token and a key whose thumbprint is `cnf.jkt`;
    ///   its `jti` is remembered (replays refused).
    /// - A token the answer binds to a certificate (`cnf.x5t#S256`) passes only with the matching
    ///   `clientCertificate` (its SHA-256 thumbprint compared in constant time).
    ///
    /// The answer's own checks are those of ``validate(_:requiredScopes:)``, on every call (cached answers
    /// included). Recorded as ``OIDC/OIDCEvent/Kind/accessTokenValidation`` when ``observer`` is set.
    /// - Parameters:
    ///   - method: the request's HTTP method.
    ///   - url: the URL the request was sent to, as the client addressed this server (scheme, host,
    ///     port and path; query and fragment are ignored).
    ///   - headers: the request's header fields (`Authorization`, `DPoP`).
    ///   - requiredScopes: the scopes the resource requires.
    ///   - dpopNonce: the nonce this server requires in DPoP proofs, if any.
    ///   - clientCertificate: the client's TLS certificate, for certificate-bound tokens.
    /// - Returns: the answer (a ``TokenIntrospection``), the scheme and (for `DPoP`) the proof.
    /// - Throws: ``OIDC/OIDCError``: `.missingBearerToken` (no credentials), `.invalidBearerRequest`, the codes of
    ///   ``validate(_:requiredScopes:)``, `.dpopTokenNotBound`, `.dpopProofMissing`, the `dpop_proof_*` codes —
    ///   answer them with ``refusal(for:requestHeaders:requiredScopes:dpopNonce:realm:)``.
    package func validate(
        method: String, url: URL, headers: HeaderFields, requiredScopes: Set<String> = [],
        dpopNonce: DPoPProofValidator.NonceRule = .notRequired,
        clientCertificate: ClientCertificate = .notPresented
    ) async throws -> IntrospectedAccessToken {
        try await observer.observe(.accessTokenValidation, origin: OIDCEvent.origin(of: endpoint)) {
            try await validateRequest(
                method: method, url: url, headers: headers, requiredScopes: requiredScopes,
                dpopNonce: dpopNonce, clientCertificate: clientCertificate)
        }
    }
}

extension DPoPProofValidator {
    /// Validates `proof` for `target`. Recorded as ``/OIDCCore/OIDCEvent/Kind/dpopProofValidation`` (origin: the
    /// target's) when `observer` is set.
    /// - Parameters:
    ///   - proof: the `DPoP` header's value.
    ///   - target: the request the proof must be for.
    ///   - nonce: the nonce rule.
    ///   - presenting: the access token presented with the proof, if any.
    /// - Throws: ``/OIDCCore/OIDCError`` with one of the `dpop_proof_*` codes, naming the failed rule.
    public func validate(_ proof: String, for target: Target, nonce: NonceRule, presenting: Presentation) async throws -> VerifiedDPoPProof {
        try await observer.observe(.dpopProofValidation, origin: target.origin) {
            try await validateProof(proof, for: target, nonce: nonce, presenting: presenting)
        }
    }
}

extension DPoPProofValidator.Target {
    /// `scheme://host[:port]` of the request URI, for events.
    var origin: String? {
        guard case .request(_, let uri) = self else { return nil }
        return OIDCEvent.origin(of: uri)
    }
}
