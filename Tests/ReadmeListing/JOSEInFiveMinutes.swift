import JOSE

/// Keys, verification with typed claims, signing: the whole of JOSE's everyday API.
func joseInFiveMinutes(token: String, pemText: String, jwksText: String) throws -> String {
    // Keys: JWK, JWK Set, or PEM (SPKI, PKCS#8, PKCS#1, SEC1, X.509 certificate).
    let privateKey = try JWK(pem: pemText)  // or JWK(json:), JWK(symmetricKey:)
    let verifier = try JWK(publicKeyFromPEM: pemText)  // public half only, never the private key
    let keys = try JWKSet(json: jwksText)  // unusable keys are skipped, see keys.skipped

    // Verify a JWT: signature, then claims with a leeway and an injectable clock (JWTValidationPolicy);
    // the issuer and the audience are arguments without defaults.
    let jwt = try JWT.verify(token, keys: keys, issuer: "https://issuer.example", audience: "my-client")
    let subject = try jwt.claims.subject  // typed registered claims
    let tenant = try jwt.claims.claim("tenant", as: String.self)  // any other claim, typed
    struct MyClaims: Decodable { let sub: String; let roles: [String] }
    let mine = try jwt.claims.decode(MyClaims.self)  // or the whole payload into your own type
    print(subject ?? "-", tenant ?? "-", mine.roles)

    // Sign, and verify with the public half.
    let signed = try JWT.sign(["sub": "alice", "exp": 1_900_000_000], key: privateKey, algorithm: .es256)
    _ = try JWT.verifyIgnoringIssuerAndAudience(signed, key: verifier)
    return signed
}
