import OIDC

func ageFromClaimsProvider(client: OIDCClient, login: LoginResult) async throws -> Int64? {
    let claims = try await client.userInfo(login.tokens)
    let providers = ForeignTokenValidator(trustedIssuers: ["https://claims.example.com"], transport: client.transport)
    let resolved = await client.resolveClaims(claims, trusting: providers)
    for (name, reason) in resolved.unresolved {  // never silently dropped
        print("claim \(name) unresolved: \(reason.code)")
    }
    return resolved["age"]?.int64Value  // merged in once verified
}
