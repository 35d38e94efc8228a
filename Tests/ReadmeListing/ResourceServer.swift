import Foundation
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
        case allowed(AccessToken)            // .subject, .clientID, .scopes, .confirmation, .claims ...
        case refused(AccessTokenRefusal)     // answer .status (400/401/403) with .headers (WWW-Authenticate, DPoP-Nonce)
    }

    /// Every request, Bearer or DPoP (RFC 6750, RFC 9449 §7): one call reads Authorization and DPoP,
    /// enforces the token's cnf binding itself (a DPoP-bound token never passes as Bearer), then checks
    /// signature, typ at+jwt, iss, aud, exp/nbf/iat, sub, client_id, jti and the scope.
    func authorize(method: String, url: URL, headers: HeaderFields) async -> Verdict {
        do {
            let presented = try await validator.validate(method: method, url: url, headers: headers, requiredScopes: ["api.read"])
            return .allowed(presented.token)
        } catch let error as OIDCError {
            return .refused(validator.refusal(for: error, requestHeaders: headers, requiredScopes: ["api.read"]))
        } catch {
            return .refused(validator.refusal(for: OIDCError(.invalidBearerRequest, "unreadable request"), requestHeaders: headers))
        }
    }
}
