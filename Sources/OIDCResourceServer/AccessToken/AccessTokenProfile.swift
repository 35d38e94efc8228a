import JOSE
import OIDC

/// Which JWT access tokens an ``AccessTokenValidator`` accepts: RFC 9068's (default), or a provider's
/// documented form, named explicitly. Every other check (signature, times, `iss`, `sub`, `iat`, `jti`,
/// binding, scopes) stays on.
public enum AccessTokenProfile: Sendable, Hashable, CustomStringConvertible {
    /// RFC 9068: `typ` `at+jwt`, `aud` containing the API's audience, `client_id` required.
    case rfc9068
    /// Keycloak's access tokens: header `typ` `JWT` (or `at+jwt`) with the payload's `typ` `Bearer` (so its
    /// ID, refresh and logout tokens stay refused), `aud` often `account` or absent. Audience rule: `aud`
    /// contains the API's audience, **or** `azp` (the client the token was issued to) is one of
    /// `allowedClients`; anything else is `audience_mismatch`. The client is `client_id`, or `azp` when
    /// `client_id` is absent (Keycloak's user tokens lack it).
    case keycloak(allowedClients: Set<String>)

    /// `rfc9068` or `keycloak(allowed clients: N)`.
    public var description: String {
        switch self {
        case .rfc9068: return "rfc9068"
        case .keycloak(let clients): return "keycloak(allowed clients: \(clients.count))"
        }
    }

    /// Keycloak: the type and audience rules of ``keycloak(allowedClients:)`` on a verified token.
    static func checkKeycloak(_ jwt: JWT, audience: String, allowedClients: Set<String>) throws {
        let type = jwt.header.type?.lowercased()
        guard type == "jwt" || AccessTokenValidator.isAccessTokenType(type) else {
            throw OIDCError(.unexpectedTokenType, "the token's typ is neither JWT (Keycloak) nor at+jwt: it is not an access token")
        }
        if type == "jwt" {
            guard case .string("Bearer")? = jwt.claims["typ"] else {
                throw OIDCError(.unexpectedTokenType, "the Keycloak token's payload typ is not Bearer: it is not an access token (an ID, refresh or logout token)")
            }
        }
        let audiences = (try? jwt.claims.audience) ?? nil
        if audiences?.contains(audience) == true { return }
        if case .string(let azp)? = jwt.claims["azp"], allowedClients.contains(azp) { return }
        throw OIDCError(.audienceMismatch, "the access token's aud does not contain this API's audience and its azp is not an allowed client")
    }
}
