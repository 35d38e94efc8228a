#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE
import OIDC

// The resource server's public validation entry points: each runs the validation and, when the
// validator has an ``OIDC/OIDCObserver``, records one event (accepted, or refused with the error's
// code). Without an observer the only extra work is the `nil` check (the access-token hot path).

extension TokenIntrospector {
    /// The answer for `token` (from the cache when fresh there). A call to the endpoint (not a cache hit)
    /// is recorded as ``OIDC/OIDCEvent/Kind/introspection`` when ``observer`` is set.
    /// - Parameters:
    ///   - token: the token to ask about (a secret: never in errors, logs or events).
    ///   - hint: `token_type_hint` (`access_token`, `refresh_token`).
    /// - Throws: ``OIDC/OIDCError``: endpoint errors (`oauth_error`, `transport`, ...),
    ///   `.invalidIntrospectionResponse`, `.unsignedIntrospectionResponse` (plain JSON where a JWT
    ///   answer is required), JWT-answer verification errors.
    public func introspect(_ token: String, hint: String? = nil) async throws -> IntrospectionResult {
        guard observer != nil else { return try await introspectToken(token, hint: hint) }
        if let cached = await cache?.result(for: token, in: cachePartition) { return cached }
        return try await observer.observe(.introspection, origin: OIDCEvent.origin(of: endpoint)) {
            try await introspectToken(token, hint: hint)
        }
    }

    /// Introspects `token` and requires it an access token, active, current and carrying `requiredScopes`.
    ///
    /// Checks, on every call (cached answers included): `active`, the answer's `token_type` absent or one of
    /// ``accessTokenTypes``, `exp` and `nbf` with the leeway, the ``audience`` rule, and the scopes.
    /// Recorded as ``OIDC/OIDCEvent/Kind/accessTokenValidation`` when ``observer`` is set.
    /// - Parameters:
    ///   - token: the access token (a secret).
    ///   - requiredScopes: scopes the token must carry.
    /// - Throws: ``OIDC/OIDCError`` `.inactiveToken`, `.unexpectedTokenType` (the answer is about a token
    ///   that is not an access token), `.expired`, `.notYetValid`, `.audienceMismatch`,
    ///   `.insufficientScope`, and the errors of ``introspect(_:hint:)``.
    public func validate(_ token: String, requiredScopes: Set<String> = []) async throws -> TokenIntrospection {
        try await observer.observe(.accessTokenValidation, origin: OIDCEvent.origin(of: endpoint)) {
            try await validateToken(token, requiredScopes: requiredScopes)
        }
    }
}

extension LogoutTokenValidator {
    /// Validates `token`. Recorded as ``OIDC/OIDCEvent/Kind/logoutTokenValidation`` when ``observer`` is set.
    /// - Parameter token: the logout token (from ``BackChannelLogoutRequest/logoutToken(fromBody:contentType:)``).
    /// - Throws: ``OIDC/OIDCError``: signature and key codes, `.expired`, `.issuedInFuture`,
    ///   `.issuerMismatch`, `.audienceMismatch`, `.unexpectedTokenType`, `.missingLogoutTokenClaim`
    ///   (a required `iat`, `jti` or `events` absent; the reason names it), `.invalidLogoutToken`
    ///   (the reason names the rule), `.replayedLogoutToken`, `.replayCacheFull` (the issuer's share of the replay cache is full).
    public func validate(_ token: String) async throws -> LogoutToken {
        try await observer.observe(.logoutTokenValidation, origin: Observation.origin(of: issuer)) {
            try await validateToken(token)
        }
    }
}

extension DPoPProofValidator {
    /// Validates `proof` for `target`. Recorded as ``OIDC/OIDCEvent/Kind/dpopProofValidation`` (origin: the
    /// target's) when ``observer`` is set.
    /// - Parameters:
    ///   - proof: the `DPoP` header's value.
    ///   - target: the request the proof must be for.
    ///   - nonce: the nonce rule.
    ///   - presenting: the access token presented with the proof, if any.
    /// - Throws: ``OIDC/OIDCError`` with one of the `dpop_proof_*` codes, naming the failed rule.
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
