import JOSE
import OIDCCore

/// Which JWT access tokens a ``ResourceGuard`` accepts: RFC 9068's (default), or a provider's
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

    /// Microsoft Entra ID v2.0 access tokens for your own API: header `typ` `JWT`, `ver` `2.0`, a `scp` or
    /// `roles` claim (so its ID Tokens stay refused), `aud` containing the API's audience (its client id).
    /// `iss` as ``/OIDCCore/ProviderProfile/entra(_:)`` rules: for a `common`/`organizations`/`consumers` issuer
    /// the template with the token's own `tid`, else exact; the tenant allow-list applies. The client is
    /// `azp`, the id `uti`, the scopes `scp` when `client_id`, `jti`, `scope` are absent. Tokens for Microsoft
    /// Graph (a `nonce` in the header) are refused as `unverifiable_access_token`, as always.
    case entra(EntraTenants)

    /// `rfc9068`, `keycloak(allowed clients: N)` or `entra(...)`.
    public var description: String {
        switch self {
        case .rfc9068: return "rfc9068"
        case .entra(let tenants): return "\(ProviderProfile.entra(tenants))"
        case .keycloak(let clients): return "keycloak(allowed clients: \(clients.count))"
        }
    }

    /// Entra ID: the type, version, `iss`/`tid` and scope-presence rules of ``entra(_:)`` on a verified token.
    static func checkEntra(_ jwt: JWT, issuer: String, tenants: EntraTenants) throws {
        guard jwt.header.hasType("JWT") else {
            throw OIDCError(.unexpectedTokenType, "the token's typ is not JWT: it is not an Entra ID access token")
        }
        guard case .string("2.0")? = jwt.claims["ver"] else {
            throw OIDCError(.unexpectedTokenType, "the token's ver is not 2.0: not an Entra ID v2.0 access token")
        }
        let hasScopes: Bool
        switch (jwt.claims["scp"], jwt.claims["roles"]) {
        case (.string?, _), (_, .array?): hasScopes = true
        default: hasScopes = false
        }
        guard hasScopes else {
            throw OIDCError(.unexpectedTokenType, "the token has neither scp nor roles: it is not an access token (an ID Token?)")
        }
        guard case .string(let tokenIssuer)? = jwt.claims["iss"] else {
            throw OIDCError(.issuerMismatch, "the access token has no \"iss\"")
        }
        try ProviderProfile.checkEntra(tokenIssuer, claims: jwt.claims, configured: issuer, tenants: tenants)
    }

    /// Keycloak: the type and audience rules of ``keycloak(allowedClients:)`` on a verified token.
    static func checkKeycloak(_ jwt: JWT, audience: String, allowedClients: Set<String>) throws {
        let plainJWT = jwt.header.hasType("JWT")
        guard plainJWT || jwt.header.hasType("at+jwt") else {
            throw OIDCError(.unexpectedTokenType, "the token's typ is neither JWT (Keycloak) nor at+jwt: it is not an access token")
        }
        if plainJWT {
            guard case .string("Bearer")? = jwt.claims["typ"] else {
                throw OIDCError(
                    .unexpectedTokenType, "the Keycloak token's payload typ is not Bearer: it is not an access token (an ID, refresh or logout token)")
            }
        }
        let audiences = (try? jwt.claims.audience) ?? nil
        if audiences?.contains(audience) == true { return }
        if case .string(let azp)? = jwt.claims["azp"], allowedClients.contains(azp) { return }
        throw OIDCError(.audienceMismatch, "the access token's aud does not contain this API's audience and its azp is not an allowed client")
    }
}
