import OIDC
import OIDCNetworking

func validateIDToken(_ idTokenText: String, expecting expectations: IDTokenExpectations) async throws -> IDToken {
    let transport = URLSessionTransport()
    let validator = try await IDTokenValidator.discover(
        issuer: "https://idp.example.com", clientID: "my-app",
        discovery: Discovery(transport: transport),
        keyCaches: JWKSetCacheRegistry(transport: transport))
    return try await validator.validate(idTokenText, expecting: expectations)
}
