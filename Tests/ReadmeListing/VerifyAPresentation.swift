import JOSE

/// An SD-JWT+KB presentation verified with its issuer's key (RFC 9901 §7), key binding required.
func verifyPresentation(_ text: String, issuerKey: JWK, nonce: String) throws -> String? {
    let presentation = try SDJWT(text)
    let verified = try presentation.verify(
        key: issuerKey,
        policy: SDJWTVerificationPolicy(
            claims: JWTValidationPolicy(issuer: "https://issuer.example"),
            keyBinding: SDJWTKeyBinding(audience: "https://verifier.example", nonce: nonce)))
    return try verified.claims.string("given_name")
}
