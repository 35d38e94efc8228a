import Foundation
import OIDCResourceServer

/// An API accepting the provider's RFC 9068 JWT access tokens, as Bearer or DPoP. One guard per process:
/// it holds the issuer's key cache, which follows key rotation, and the DPoP replay cache.
struct ResourceServer {
    let tokens: ResourceGuard

    init() async throws {
        tokens = try await ResourceGuard.discover(issuer: "https://idp.example.com", audience: "https://api.example.com")
    }

    /// Every request (RFC 6750, RFC 9449 §7): one call reads Authorization and DPoP, enforces the token's cnf binding
    /// (a DPoP-bound token never passes as Bearer), then checks signature, typ at+jwt, iss, aud, exp/nbf/iat, sub,
    /// client_id, jti and the scope. A refusal is a value to send, never an error.
    func handle(method: String, url: URL, headers: HeaderFields) async -> (status: Int, headers: HeaderFields, body: [UInt8]) {
        switch await tokens.check(method: method, url: url, headers: headers, requiredScopes: ["api.read"]) {
        case .allowed(let token):  // .subject, .clientID, .scopes, .confirmation, .claims ...
            return (200, ["Content-Type": "text/plain"], Array("hello \(token.subject ?? "")".utf8))
        case .refused(let refusal):  // 400/401/403 with WWW-Authenticate (and DPoP-Nonce), or 503
            return (refusal.status, refusal.headers, refusal.body)
        }
    }
}
