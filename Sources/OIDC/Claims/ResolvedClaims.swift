import JOSE

/// Claims with their aggregated and distributed members resolved (OpenID Connect Core §5.6.2): every claim a
/// verified source delivered is in ``claims``, and every claim that could not be had is in ``unresolved`` with why.
///
/// Made by ``OIDCClient/resolveClaims(_:trusting:fetchPolicy:)`` from UserInfo's claims or an ID Token's. A claim
/// `_claim_names` lists is never silently dropped: it is either in ``claims`` or in ``unresolved``.
public struct ResolvedClaims: Sendable {
    /// The claims as received, without `_claim_names` and `_claim_sources`, plus each claim a verified source delivered.
    /// A claim the response carries itself is kept as it is: a source never replaces it.
    public let claims: JSONObject
    /// Each claim named in `_claim_names` that no verified source delivered, with the typed reason: `invalid_claim_source`,
    /// `claim_source_host_refused`, `claim_source_transport_failed`, or the verification's code (`unsecured_token`,
    /// `missing_issuer`, `untrusted_issuer`, `invalid_signature`, `expired`, ...).
    public let unresolved: [String: OIDCError]

    /// The value of claim `name` in ``claims``.
    public subscript(name: String) -> JSONValue? { claims[name] }
}
