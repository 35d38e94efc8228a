import OIDC
import OIDCNetworking
import OIDCResourceServer

/// An API accepting the provider's RFC 9068 JWT access tokens. One validator per process: it holds
/// the issuer's key cache, which follows key rotation.
struct ResourceServer {
    let validator: AccessTokenValidator

    init() async throws {
        let transport = URLSessionTransport()
        validator = try await AccessTokenValidator.discover(issuer: "https://idp.example.com",
                                                            audience: "https://api.example.com",
                                                            discovery: Discovery(transport: transport),
                                                            keyCaches: JWKSetCacheRegistry(transport: transport))
    }

    enum Verdict {
        case allowed(AccessToken)         // .subject, .clientID, .scopes, .authTime, .claims ...
        case refused(BearerChallenge)     // answer .status (400/401/403) with WWW-Authenticate: .headerValue
    }

    /// Every request: the bearer token (RFC 6750, header only unless you name another source), then
    /// signature, typ at+jwt, iss, aud, exp/nbf/iat, sub, client_id, jti and the scope.
    func authorize(headers: HeaderFields) async -> Verdict {
        do {
            let bearer = try BearerTokenExtractor().token(headers: headers)
            return .allowed(try await validator.validate(bearer, requiredScopes: ["api.read"]))
        } catch let error as OIDCError {
            return .refused(BearerChallenge(error: error, requiredScopes: ["api.read"]))
        } catch {
            return .refused(BearerChallenge(error: .invalidToken))
        }
    }
}
