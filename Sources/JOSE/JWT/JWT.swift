/// A verified JWT: the JWS header, the claims, and the key that verified it.
public struct JWT: Sendable {
    /// The protected header.
    public let header: JOSEHeader
    /// The claim set.
    public let claims: JWTClaims
    /// The key the signature was verified with.
    public let key: JWK

    /// Parses, verifies the signature with `key`, decodes the claims and
    /// applies `validation`: the one call a relying party needs.
    public static func verify(_ token: String, key: JWK, policy: JWSVerificationPolicy = .default,
                              validation: JWTValidationOptions = .default) throws -> JWT {
        let jws = try CompactJWS(token, limits: policy.limits)
        try jws.verify(with: key, policy: policy)
        return try finish(jws, key: key, policy: policy, validation: validation)
    }

    /// As ``verify(_:key:policy:validation:)``, choosing the key from a set by `kid`
    /// (or the single key fitting the algorithm when the token has no `kid`).
    public static func verify(_ token: String, keys: JWKSet, policy: JWSVerificationPolicy = .default,
                              validation: JWTValidationOptions = .default) throws -> JWT {
        let jws = try CompactJWS(token, limits: policy.limits)
        let key = try jws.verify(with: keys, policy: policy)
        return try finish(jws, key: key, policy: policy, validation: validation)
    }

    private static func finish(_ jws: CompactJWS, key: JWK, policy: JWSVerificationPolicy, validation: JWTValidationOptions) throws -> JWT {
        let claims = try JWTClaims(payload: jws.payload, limits: policy.limits)
        try claims.validate(validation)
        return JWT(header: jws.header, claims: claims, key: key)
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
