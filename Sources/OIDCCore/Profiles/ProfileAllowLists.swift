/// Which Entra ID tenants (`tid`) a multi-tenant client accepts: every tenant, said by name, or a
/// non-empty allow-list. An empty list is refused when it is made, so a list that arrives empty from
/// configuration never silently admits everyone.
public struct EntraTenants: Sendable, Hashable {
    /// The tenant ids accepted (GUIDs, compared case-insensitively), or `nil` for any tenant.
    public let allowed: Set<String>?

    /// Every tenant the configured endpoint admits. Any organization's users can then log in: prefer an
    /// allow-list (Microsoft's documentation recommends restricting the tenants an app accepts).
    public static let anyTenant = EntraTenants(allowed: nil)

    /// Only these tenant ids (`tid`, GUIDs, compared case-insensitively). Recommended.
    /// - Throws: ``OIDCError`` `.emptyAllowList` when `tenants` is empty: say ``anyTenant`` instead.
    public static func allowList(_ tenants: Set<String>) throws(OIDCError) -> EntraTenants {
        guard !tenants.isEmpty else {
            throw OIDCError(.emptyAllowList, "the Entra ID tenant allow-list is empty: name at least one tenant, or say anyTenant")
        }
        return EntraTenants(allowed: tenants)
    }

    /// The fixed tenant of personal Microsoft accounts, the only one `consumers` issues for.
    public static let consumerTenant = "9188040d-6c67-4c5b-b112-36a304b66dad"

    private init(allowed: Set<String>?) { self.allowed = allowed }
}

/// Which Google Workspace domains (`hd`) a client accepts: every account, said by name, or a non-empty
/// allow-list. An empty list is refused when it is made.
public struct GoogleHostedDomains: Sendable, Hashable {
    /// The hosted domains accepted (compared case-insensitively), or `nil` for every account.
    public let allowed: Set<String>?

    /// Every Google account, with or without `hd` (consumer accounts have none).
    public static let anyHostedDomain = GoogleHostedDomains(allowed: nil)

    /// Only ID Tokens whose `hd` is one of these domains (compared case-insensitively); a token without
    /// `hd` (a consumer account) is refused.
    /// - Throws: ``OIDCError`` `.emptyAllowList` when `domains` is empty: say ``anyHostedDomain`` instead.
    public static func allowList(_ domains: Set<String>) throws(OIDCError) -> GoogleHostedDomains {
        guard !domains.isEmpty else {
            throw OIDCError(.emptyAllowList, "the Google hosted-domain allow-list is empty: name at least one domain, or say anyHostedDomain")
        }
        return GoogleHostedDomains(allowed: domains)
    }

    private init(allowed: Set<String>?) { self.allowed = allowed }
}
