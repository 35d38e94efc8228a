/// A large provider's documented departures from OpenID Connect, each allowed only when the user
/// names the provider here — never guessed from a host name — and only as narrowly as the provider's
/// own documentation says; every other check stays on. Set it on `OIDCClient.Configuration.profile`.
///
/// What each profile relaxes (and nothing else):
/// - ``entra(_:)``: a multi-tenant issuer (`…/common|organizations|consumers/v2.0`) whose discovery
///   `issuer` is the template `…/{tenantid}/v2.0`; each ID Token's `iss` must equal that template with
///   the token's own `tid` (a GUID) put in, exactly.
/// - ``google(_:)``: an ID Token `iss` equal to the configured issuer without its scheme
///   (`accounts.google.com`).
/// - ``apple``: `email_verified` and `is_private_email` sent as the strings `"true"` / `"false"`.
/// - ``keycloak``: nothing for ID Tokens (its access tokens: ``ProviderProfile`` has no say there;
///   use the resource server's Keycloak policy).
/// - ``okta``: nothing (custom authorization servers such as `…/oauth2/default` are exact issuers;
///   org-level access tokens are opaque: see ``accessTokensNeedIntrospection(issuer:)``).
/// - ``auth0``: `updated_at` sent as an ISO 8601 string instead of a number.
public enum ProviderProfile: Sendable, Hashable, CustomStringConvertible {
    /// Microsoft Entra ID (v2.0 endpoints). For a single tenant (`…/<tenant GUID>/v2.0`) the issuer stays
    /// exact; for `common`, `organizations` and `consumers` see the type's summary. `organizations` refuses
    /// the consumer tenant, `consumers` accepts only it (``EntraTenants/consumerTenant``).
    case entra(EntraTenants)
    /// Google: `iss` may be the configured issuer with or without its scheme; optionally a hosted-domain
    /// (`hd`) allow-list.
    case google(GoogleHostedDomains)
    /// Sign in with Apple: typed boolean claims read from `"true"`/`"false"` strings too. The
    /// `client_secret` JWT is ``ClientAuthentication/appleClientSecret(_:)``.
    case apple
    /// Keycloak: no ID Token relaxation; the resource-server policy for its access tokens is separate.
    case keycloak
    /// Okta: no ID Token relaxation; says which issuers' access tokens are opaque.
    case okta
    /// Auth0: `updated_at` read from an ISO 8601 string as well as a number. Its issuer ends with `/`,
    /// which the exact comparison keeps.
    case auth0

    /// The profile with this ``name`` (as a command line gives it), or `nil` for any other text.
    ///
    /// The narrowings are values, never inferred from an empty list: "any tenant" is ``EntraTenants/anyTenant``
    /// said by name, and ``EntraTenants/allowList(_:)`` refuses an empty list.
    /// - Parameters:
    ///   - name: `entra`, `google`, `apple`, `keycloak`, `okta` or `auth0`.
    ///   - tenants: which Entra ID tenants are accepted. Ignored by other profiles.
    ///   - hostedDomains: which Google hosted domains (`hd`) are accepted. Ignored by other profiles.
    public init?(name: String, tenants: EntraTenants, hostedDomains: GoogleHostedDomains) {
        switch name {
        case "entra": self = .entra(tenants)
        case "google": self = .google(hostedDomains)
        case "apple": self = .apple
        case "keycloak": self = .keycloak
        case "okta": self = .okta
        case "auth0": self = .auth0
        default: return nil
        }
    }

    /// The profile's name: `entra`, `google`, `apple`, `keycloak`, `okta` or `auth0`.
    public var name: String {
        switch self {
        case .entra: return "entra"
        case .google: return "google"
        case .apple: return "apple"
        case .keycloak: return "keycloak"
        case .okta: return "okta"
        case .auth0: return "auth0"
        }
    }

    /// The name and its narrowing, e.g. `entra(tenants: 2 allowed)`.
    public var description: String {
        switch self {
        case .entra(let tenants):
            return tenants.allowed.map { "entra(tenants: \($0.count) allowed)" } ?? "entra(tenants: any)"
        case .google(let domains):
            return domains.allowed.map { "google(hd: \($0.sorted().joined(separator: ",")))" } ?? "google(hd: any)"
        default: return name
        }
    }

    /// Whether ID Tokens may carry `email_verified` / `is_private_email` as strings.
    package var readsBooleanStrings: Bool { self == .apple }
    /// Whether `updated_at` may be an ISO 8601 string.
    package var readsISO8601UpdatedAt: Bool { self == .auth0 }

    /// Okta: whether the access tokens of `issuer` are opaque to third parties, so that a resource server
    /// must introspect them (RFC 7662) rather than verify them: the org authorization server (an issuer
    /// without an `/oauth2/` path, e.g. `https://example.okta.com`) signs access tokens only for Okta's own
    /// APIs; a custom authorization server (`…/oauth2/default`, `…/oauth2/<id>`) issues verifiable ones.
    /// Always `false` for the other profiles.
    /// - Parameter issuer: the issuer identifier.
    public func accessTokensNeedIntrospection(issuer: String) -> Bool {
        guard self == .okta else { return false }
        return !issuer.contains("/oauth2/")
    }
}
