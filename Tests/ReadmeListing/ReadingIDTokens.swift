import OIDC

func readIDToken(_ tokens: TokenResponse, nonce: String) async throws {
    let transport = try LibSSLTransport()  // or URLSessionTransport (OIDCNetworking), or your own HTTPTransport
    let discovery = Discovery(transport: transport)  // cached per issuer, issuer checked exactly
    let keyCaches = JWKSetCacheRegistry(transport: transport)
    let validator = try await IDTokenValidator.discover(
        issuer: "https://idp.example.com",
        clientID: "my-app",
        discovery: discovery, keyCaches: keyCaches)
    guard let idTokenText = tokens.idToken else { return }
    let idToken = try await validator.validate(
        idTokenText,  // expectations required
        expecting: IDTokenExpectations(nonce: .sent(nonce)))

    // Standard claims, typed.
    print(idToken.subject ?? "-", idToken.authTime as Any, idToken.email as Any)
    // Any other claim, three ways; a wrong JSON type is an error naming the claim, never a silent nil.
    let instance = try idToken.claim("cmiInstanceId", as: String.self)
    enum Keys: String, CodingKey { case session_state }
    let sessionState: String? = try idToken.get(parameter: Keys.session_state)
    struct Mine: Decodable { let sub: String; let mcc: String? }
    let mine = try idToken.decode(Mine.self)
    print(instance ?? "-", sessionState ?? "-", mine.mcc ?? "-")
}
