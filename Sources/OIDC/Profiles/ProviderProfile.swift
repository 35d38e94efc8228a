/// A large provider's documented departures from OpenID Connect, each allowed only when the user
/// names the provider here — never guessed from a host name — and only as narrowly as the provider's
/// own documentation says; every other check stays on. Set it on ``OIDCClient/Configuration/profile``.
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
    /// - Parameters:
    ///   - name: `entra`, `google`, `apple`, `keycloak`, `okta` or `auth0`.
    ///   - tenants: Entra ID tenant allow-list; empty: ``EntraTenants/anyTenant``. Ignored by other profiles.
    ///   - hostedDomains: Google `hd` allow-list; empty: ``GoogleHostedDomains/anyHostedDomain``. Ignored by other profiles.
    public init?(name: String, tenants: Set<String> = [], hostedDomains: Set<String> = []) {
        switch name {
        case "entra": self = .entra(tenants.isEmpty ? .anyTenant : .allowList(tenants))
        case "google": self = .google(hostedDomains.isEmpty ? .anyHostedDomain : .allowList(hostedDomains))
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
        case .entra(.anyTenant): return "entra(tenants: any)"
        case .entra(.allowList(let list)): return "entra(tenants: \(list.count) allowed)"
        case .google(.anyHostedDomain): return "google(hd: any)"
        case .google(.allowList(let list)): return "google(hd: \(list.sorted().joined(separator: ",")))"
        default: return name
        }
    }

    /// Whether ID Tokens may carry `email_verified` / `is_private_email` as strings.
    var readsBooleanStrings: Bool { self == .apple }
    /// Whether `updated_at` may be an ISO 8601 string.
    var readsISO8601UpdatedAt: Bool { self == .auth0 }

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

/// Which Entra ID tenants (`tid`) a multi-tenant client accepts.
public enum EntraTenants: Sendable, Hashable {
    /// Every tenant the configured endpoint admits. Any organization's users can then log in: prefer an
    /// allow-list (Microsoft's documentation recommends restricting the tenants an app accepts).
    case anyTenant
    /// Only these tenant ids (`tid`, GUIDs, compared case-insensitively). Recommended.
    case allowList(Set<String>)

    /// The fixed tenant of personal Microsoft accounts, the only one `consumers` issues for.
    public static let consumerTenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
}

/// Which Google Workspace domains (`hd`) a client accepts.
public enum GoogleHostedDomains: Sendable, Hashable {
    /// Every Google account, with or without `hd` (consumer accounts have none).
    case anyHostedDomain
    /// Only ID Tokens whose `hd` is one of these domains (compared case-insensitively); a token without
    /// `hd` (a consumer account) is refused.
    case allowList(Set<String>)
}
