#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SDJWT {
    /// Verifies the SD-JWT with the issuer's key (RFC 9901 §7.1, and §7.3 when the policy requires key binding).
    /// - Throws: ``JOSEError``: the codes of JWS and JWT verification, `.sdUnsupportedHashAlgorithm`,
    ///   `.sdMalformedDisclosure`, `.sdReservedClaimName`, `.sdRepeatedDisclosure`, `.sdDuplicateDigest`,
    ///   `.sdMisplacedDisclosure`, `.sdClaimNameConflict`, `.sdMalformedPayload`, `.sdUnreferencedDisclosure`,
    ///   and for key binding `.sdKeyBindingRequired`, `.sdHolderKeyMissing`, `.sdHashMismatch`, `.sdKeyBindingStale`.
    public func verify(key: JWK, policy: SDJWTVerificationPolicy = SDJWTVerificationPolicy()) throws -> VerifiedSDJWT {
        try verify(keys: JWKSet(keys: [key]), policy: policy)
    }

    /// As ``verify(key:policy:)``, choosing the issuer's key from a set by `kid` (or the single key fitting the algorithm).
    public func verify(keys: JWKSet, policy: SDJWTVerificationPolicy = SDJWTVerificationPolicy()) throws -> VerifiedSDJWT {
        // The signature first, with the time rules only: `iss` and required claims may be disclosed, so they are checked after processing.
        let timesOnly = JWTValidationPolicy(clock: policy.claims.clock, leeway: policy.claims.leeway)
        let jwt = try JWT.verifyIgnoringIssuerAndAudience(issuerSignedJWT, keys: keys, policy: policy.signature, validation: timesOnly)
        if let expected = policy.issuerJWTType {
            guard let type = jwt.header.type, SDJWT.sameMediaType(type, expected) else {
                throw JOSEError(.invalidHeader, "the issuer-signed JWT's \"typ\" must be \"\(expected)\"", member: "typ")
            }
        }
        let payload = jwt.claims.object
        let algorithm = try SDJWTHashAlgorithm(sdAlg: payload["_sd_alg"])
        let decoded = try disclosures.map { try SDJWTDisclosure(encoded: $0, limits: policy.signature.limits) }
        var processing = try SDJWTProcessing(disclosures: decoded, algorithm: algorithm, maxDepth: 2 * policy.signature.limits.maxJSONDepth)
        let processedObject = try processing.process(payload: payload)
        let processed = JWTClaims(processedObject)
        var claimChecks = policy.claims
        claimChecks.audience = nil
        try processed.validate(claimChecks)
        let placed = decoded.indices.map { index in
            VerifiedSDJWT.PlacedDisclosure(
                disclosure: decoded[index], digest: processing.digests[index], pointer: SDJWTPointer.text(processing.paths[index] ?? []))
        }
        var keyBinding: JWT?
        if let required = policy.keyBinding {
            keyBinding = try verifyKeyBinding(required, claims: processedObject, algorithm: algorithm, policy: policy)
        }
        return VerifiedSDJWT(
            header: jwt.header, claims: processed, disclosures: placed, hashAlgorithm: algorithm, issuerKey: jwt.key, keyBinding: keyBinding)
    }

    /// RFC 9901 §7.3: the KB-JWT signed by `cnf.jwk`, typed `kb+jwt`, for the audience and nonce, recent, over this presentation.
    private func verifyKeyBinding(
        _ required: SDJWTKeyBinding, claims: JSONObject, algorithm: SDJWTHashAlgorithm, policy: SDJWTVerificationPolicy
    ) throws -> JWT {
        guard let token = keyBindingJWT else {
            throw JOSEError(.sdKeyBindingRequired, "key binding is required and the presentation has no KB-JWT")
        }
        guard let jwk = claims["cnf"]?.objectValue?["jwk"]?.objectValue else {
            throw JOSEError(.sdHolderKeyMissing, "key binding is required and the issuer-signed JWT has no \"cnf\".\"jwk\"", member: "cnf")
        }
        // The same credential is presented again and again: its holder key is built once per thread, not per presentation.
        let holderKey = try EmbeddedKeyCache.key(for: jwk)
        let checks = JWTValidationPolicy(
            clock: policy.claims.clock, leeway: policy.claims.leeway, audience: required.audience, requiredClaims: ["iat", "nonce", "sd_hash"])
        let kb = try JWT.verifyIgnoringIssuerAndAudience(token, key: holderKey, policy: policy.signature, validation: checks)
        guard let type = kb.header.type, SDJWT.sameMediaType(type, "kb+jwt") else {
            throw JOSEError(.invalidHeader, "the KB-JWT's \"typ\" must be \"kb+jwt\"", member: "typ")
        }
        guard let issuedAt = try kb.claims.issuedAt else { throw JOSEError(.missingClaim, "the KB-JWT has no \"iat\"", member: "iat") }
        let oldest = policy.claims.clock().addingTimeInterval(-(max(0, required.maximumAge) + max(0, min(policy.claims.leeway, 86_400))))
        guard issuedAt >= oldest else {
            throw JOSEError(.sdKeyBindingStale, "the KB-JWT was issued more than \(Int(max(0, min(required.maximumAge, 1e9)))) s ago", member: "iat")
        }
        guard let nonce = try kb.claims.string("nonce"), ConstantTime.equals(nonce, required.nonce) else {
            throw JOSEError(.claimMismatch, "the KB-JWT's \"nonce\" is not the expected one", member: "nonce")
        }
        guard let hash = try kb.claims.string("sd_hash"), ConstantTime.equals(hash, algorithm.digest(ofPresentationWithoutKeyBinding: self)) else {
            throw JOSEError(.sdHashMismatch, "the KB-JWT's \"sd_hash\" is not the digest of this presentation", member: "sd_hash")
        }
        return kb
    }

    /// Media types compare case-insensitively, with or without `application/` (RFC 7515 §4.1.9).
    static func sameMediaType(_ value: String, _ expected: String) -> Bool {
        // The usual case, the very spelling expected, needs no lowercasing.
        if value == expected { return true }
        func bare(_ text: String) -> String {
            let lower = text.lowercased()
            return lower.hasPrefix("application/") ? String(lower.dropFirst("application/".count)) : lower
        }
        return bare(value) == bare(expected)
    }
}
