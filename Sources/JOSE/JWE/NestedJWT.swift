/// Nested JWTs (RFC 7519 §5.2): a signed JWT encrypted to the recipient
/// (sign, then encrypt; `cty: JWT`).
///
/// Decryption only removes the outer layer: the plaintext must be a compact JWS,
/// which the caller then verifies with the usual JWS rules. A token whose plaintext
/// is not a signed JWT (a bare claim set, say) is refused, so a token that should be
/// signed is never accepted merely because it decrypted.
public enum NestedJWT {
    /// Whether `token` has the shape of a compact JWE (five segments) rather than a compact JWS (three).
    /// Shape only: nothing is decoded or checked.
    /// - Parameter token: a compact token.
    public static func isEncrypted(_ token: String) -> Bool {
        var dots = 0
        for byte in token.utf8 where byte == UInt8(ascii: ".") { dots += 1 }
        return dots == 4
    }

    /// Decrypts the outer JWE and returns the signed JWT it holds, not yet verified.
    ///
    /// The JWE's `cty`, when present, must be `JWT` or a JWT media type (`...+jwt`), case-insensitively; the plaintext must be a
    /// compact JWS (three segments, a parseable protected header).
    /// - Parameters:
    ///   - token: the compact JWE.
    ///   - decryptionKeys: the recipient's keys.
    ///   - policy: the key management and content encryption algorithms accepted.
    /// - Returns: the inner compact JWS, to verify with ``JWT`` or ``CompactJWS``.
    /// - Throws: ``JOSEError``: the codes of ``JWEDecryptionKeys/decrypt(_:policy:)-(CompactJWE,_)``;
    ///   `.malformedToken` when the token is not a JWE or its plaintext is not a signed JWT (no `alg`, or an
    ///   empty signature); `.unsupportedAlgorithm` when the inner JWT says `alg: none` or an algorithm this
    ///   package does not implement: an unsigned inner token is refused here, not left to the caller.
    public static func signedToken(in token: String, decryptionKeys: JWEDecryptionKeys, policy: JWEDecryptionPolicy = .default) throws -> String {
        guard isEncrypted(token) else {
            throw JOSEError(.malformedToken, "the token is not encrypted (a compact JWE has five segments)")
        }
        let jwe = try CompactJWE(token)
        if let contentType = jwe.header.members["cty"] {
            // `JWT`, or an explicitly typed JWT (`token-introspection+jwt`, RFC 8725 §3.11), `application/` optional.
            guard var text = contentType.stringValue?.lowercased() else {
                throw JOSEError(.malformedToken, "the encrypted token's \"cty\" is not a string", member: "cty")
            }
            if text.hasPrefix("application/") { text.removeFirst("application/".count) }
            guard text == "jwt" || text.hasSuffix("+jwt") else {
                throw JOSEError(.malformedToken, "the encrypted token's \"cty\" is not JWT: it does not hold a signed JWT", member: "cty")
            }
        }
        let plaintext = try decryptionKeys.decrypt(jwe, policy: policy).plaintext
        let text = String(decoding: plaintext, as: UTF8.self)
        guard Array(text.utf8) == plaintext, !isEncrypted(text) else {
            throw JOSEError(.malformedToken, "the encrypted token does not hold a signed JWT")
        }
        let inner: CompactJWS
        do {
            inner = try CompactJWS(text)
        } catch let error as JOSEError {
            throw JOSEError(.malformedToken, "the encrypted token does not hold a signed JWT (\(error.reason)); an unsigned token is refused")
        }
        try refuseUnsigned(inner)
        return text
    }

    /// Refuses an inner token that is not signed: `alg` missing, `none` in any spelling or an algorithm
    /// this package does not implement, or an empty signature. Checked here, before any caller sees the
    /// token, so decryption never hands out an unsecured JWT (RFC 7519 §5.2 nests a *signed* JWT).
    private static func refuseUnsigned(_ inner: CompactJWS) throws {
        guard let name = inner.header.algorithmName else {
            throw JOSEError(.malformedToken, "the encrypted token holds a JWT without \"alg\": an unsigned token is refused", member: "alg")
        }
        _ = try JWSAlgorithm(headerValue: name)  // `none` is refused by name (unsupported_algorithm)
        guard !inner.signature.isEmpty else {
            throw JOSEError(.malformedToken, "the encrypted token holds a JWT with an empty signature: an unsigned token is refused")
        }
    }
}

extension JWT {
    /// Decrypts a nested JWT (RFC 7519 §5.2) with `decryptionKeys`, then verifies the signed JWT inside
    /// exactly as ``verify(_:keys:issuer:audience:policy:validation:)`` does: the signature with the
    /// issuer's `keys`, the times, `iss` and `aud`. Decryption never stands in for the signature.
    /// - Parameters:
    ///   - token: the compact JWE.
    ///   - decryptionKeys: the recipient's private keys (and client secret).
    ///   - keys: the issuer's signing keys.
    ///   - issuer: the required `iss`.
    ///   - audience: a value `aud` must contain.
    ///   - decryptionPolicy: the JWE algorithms accepted.
    ///   - policy: the JWS algorithms and limits accepted.
    ///   - validation: times and further claims.
    /// - Returns: the verified inner JWT.
    /// - Throws: ``JOSEError``: as ``NestedJWT/signedToken(in:decryptionKeys:policy:)``, then as
    ///   ``verify(_:keys:issuer:audience:policy:validation:)``.
    public static func decryptAndVerify(
        _ token: String, decryptionKeys: JWEDecryptionKeys, keys: JWKSet, issuer: String, audience: String,
        decryptionPolicy: JWEDecryptionPolicy = .default, policy: JWSVerificationPolicy = .default,
        validation: JWTValidationPolicy = .default
    ) throws -> JWT {
        let signed = try NestedJWT.signedToken(in: token, decryptionKeys: decryptionKeys, policy: decryptionPolicy)
        return try verify(signed, keys: keys, issuer: issuer, audience: audience, policy: policy, validation: validation)
    }
}
