import JOSE

func subject(of token: String, jwksText: String) throws -> String? {
    let keys = try JWKSet(json: jwksText)
    let jwt = try JWT.verify(token, keys: keys, issuer: "https://issuer.example", audience: "my-client")
    return try jwt.claims.subject
}
