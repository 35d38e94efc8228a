/// A verified JWT: the JWS header, the claims, and the key that verified it.
public struct JWT: Sendable {
    /// The protected header.
    public let header: JOSEHeader
    /// The claim set.
    public let claims: JWTClaims
    /// The key the signature was verified with.
    public let key: JWK

    /// The same verified token in storage of its own: header, claims and key behind references no other copy
    /// holds, so that a thread serving it many times never writes to memory other threads share.
    package func detached() -> JWT { JWT(header: header.detached(), claims: claims.detached(), key: key.detached()) }

    /// Parses, verifies the signature with `key`, decodes the claims and applies `validation`, and
    /// requires `iss` to equal `issuer` and `aud` to contain `audience`: the one call a relying party needs.
    /// The identity expectations are arguments without defaults, so they cannot be forgotten; they replace
    /// any `issuer`/`audience` set in `validation`.
    /// - Throws: ``JOSEError``: signature and key codes, `.expired`, `.notYetValid`, `.issuedInFuture`,
    ///   `.issuerMismatch`, `.audienceMismatch`, `.missingClaim`.
    public static func verify(
        _ token: String, key: JWK, issuer: String, audience: String, policy: JWSVerificationPolicy = .default,
        validation: JWTValidationPolicy = .default
    ) throws -> JWT {
        try verify(token, keys: .single(key), policy: policy, validation: identified(validation, issuer, audience))
    }

    /// As ``verify(_:key:issuer:audience:policy:validation:)``, choosing the key from a set by `kid`
    /// (or the single key fitting the algorithm when the token has no `kid`).
    public static func verify(
        _ token: String, keys: JWKSet, issuer: String, audience: String,
        policy: JWSVerificationPolicy = .default, validation: JWTValidationPolicy = .default
    ) throws -> JWT {
        try verify(token, keys: .set(keys), policy: policy, validation: identified(validation, issuer, audience))
    }

    /// Verifies the signature with `key` and applies `validation` (the time claims, and `iss`/`aud` **only
    /// when `validation` names them**): for tokens whose issuer and audience are checked by other means,
    /// or a tool that shows a token. A relying party wants ``verify(_:key:issuer:audience:policy:validation:)``.
    public static func verifyIgnoringIssuerAndAudience(
        _ token: String, key: JWK, policy: JWSVerificationPolicy = .default,
        validation: JWTValidationPolicy = .default
    ) throws -> JWT {
        try verify(token, keys: .single(key), policy: policy, validation: validation)
    }

    /// As ``verifyIgnoringIssuerAndAudience(_:key:policy:validation:)``, choosing the key from a set by `kid`.
    public static func verifyIgnoringIssuerAndAudience(
        _ token: String, keys: JWKSet, policy: JWSVerificationPolicy = .default,
        validation: JWTValidationPolicy = .default
    ) throws -> JWT {
        try verify(token, keys: .set(keys), policy: policy, validation: validation)
    }

    /// As ``verifyIgnoringIssuerAndAudience(_:keys:policy:validation:)`` for a token that is part of a longer
    /// text (e.g. an `Authorization` value), read in place: no copy of the token is made.
    package static func verifyIgnoringIssuerAndAudience(
        _ token: Substring, keys: JWKSet, policy: JWSVerificationPolicy,
        validation: JWTValidationPolicy
    ) throws -> JWT {
        guard let parts = try token.utf8.withContiguousStorageIfAvailable({ try readVerified($0, keys: .set(keys), policy: policy) }) else {
            return try verify(String(token), keys: .set(keys), policy: policy, validation: validation)
        }
        return try validated(parts, policy: policy, validation: validation)
    }

    private static func identified(_ validation: JWTValidationPolicy, _ issuer: String, _ audience: String) -> JWTValidationPolicy {
        var options = validation
        options.issuer = issuer
        options.audience = audience
        return options
    }

    /// One pass over the token's bytes, read in place: the same checks, in the
    /// same order, as ``CompactJWS/init(_:detachedPayload:limits:)`` followed by
    /// ``CompactJWS/verify(with:policy:)``, but the signature is checked over
    /// the token itself and decoded on the stack, so only the payload is copied.
    private static func verify(
        _ token: String, keys: VerificationKeys, policy: JWSVerificationPolicy,
        validation: JWTValidationPolicy
    ) throws -> JWT {
        let parts = try token.withUTF8InPlace { try readVerified($0, keys: keys, policy: policy) }
        return try validated(parts, policy: policy, validation: validation)
    }

    /// Where the verification key comes from: plain data rather than a closure, so the hot path
    /// allocates no closure context and copies no policy into one.
    private enum VerificationKeys {
        /// The caller's one key.
        case single(JWK)
        /// The key of a set that the header names (``JWKSet/key(for:policy:)``).
        case set(JWKSet)

        func key(for header: JOSEHeader, policy: JWSVerificationPolicy) throws -> JWK {
            switch self {
            case .single(let key): return key
            case .set(let keys): return try keys.key(for: header, policy: policy)
            }
        }
    }

    /// The claims of verified parts, with `validation` applied.
    private static func validated(_ parts: consuming VerifiedParts, policy: JWSVerificationPolicy, validation: JWTValidationPolicy) throws -> JWT {
        let claims = try JWTClaims(payload: parts.payload, limits: policy.limits)
        try claims.validate(validation)
        return JWT(header: parts.header, claims: claims, key: parts.key)
    }

    private struct VerifiedParts {
        let header: JOSEHeader
        let payload: [UInt8]
        let key: JWK
    }

    private static func readVerified(
        _ bytes: UnsafeBufferPointer<UInt8>, keys: VerificationKeys,
        policy: JWSVerificationPolicy
    ) throws -> VerifiedParts {
        let segments = try CompactSegments(bytes, limits: policy.limits)
        var payload: [UInt8] = []
        var key: JWK?
        try segments.withDecodedSignature { signature in
            payload = try segments.decodedPayload()
            let chosen = try keys.key(for: segments.header, policy: policy)
            try JWSVerification.verify(
                header: segments.header, signature: signature,
                input: UnsafeRawBufferPointer(segments.signingInput), key: chosen, policy: policy)
            key = chosen
        }
        guard let key else { throw JOSEError(.malformedToken, "the token could not be read") }
        return VerifiedParts(header: segments.header, payload: payload, key: key)
    }

    /// Signs a claim set.
    public static func sign(_ claims: JSONObject, key: JWK, algorithm: JWSAlgorithm, header: JSONObject = ["typ": "JWT"]) throws -> String {
        try CompactJWS.sign(payload: Array(claims.jsonString().utf8), header: header, key: key, algorithm: algorithm)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object from a literal, in literal order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }
}
