#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A verified status list token (draft-ietf-oauth-status-list §5.1): a JWT of `typ` `statuslist+jwt`, signed by
/// the credential issuer's key, whose `sub` is the URI the credential named and whose `status_list` is the list.
///
/// ``verify(_:uri:keys:policy:validation:maximumListBytes:)`` checks, in order: the signature with a key of the
/// given set (every rule of JOSE verification: no `alg: none`, the key decides the algorithm), the explicit type,
/// `exp`/`nbf`/`iat` against the clock with the leeway, `sub` equal to the URI, `iat` present, `ttl` a positive
/// number when present, and the list itself (bounded inflation).
public struct StatusListToken: Sendable {
    /// The list.
    public let list: StatusList
    /// `sub`: the URI the token was fetched from, as the credential named it.
    public let subject: String
    /// `iat`.
    public let issuedAt: Date
    /// `exp`, when present: the token must not be used after it.
    public let expiresAt: Date?
    /// `ttl`, when present: the most time a relying party may keep the token before fetching it again.
    public let timeToLive: TimeInterval?
    /// The key that verified the signature.
    public let key: JWK

    /// The media type of the token and of its HTTP answer.
    public static let mediaType = "application/statuslist+jwt"

    /// Verifies a status list token fetched from `uri`.
    /// - Parameters:
    ///   - token: the compact JWS.
    ///   - uri: the status list URI the credential named (`status.status_list.uri`); `sub` must equal it.
    ///   - keys: the credential issuer's keys.
    ///   - policy: the signature rules (algorithms, key checks, limits).
    ///   - validation: the clock and leeway for `exp`, `nbf` and `iat`; its issuer and audience, when set, are checked too.
    ///   - maximumListBytes: the bound on the inflated list.
    /// - Throws: ``JOSEError``: signature and key codes; `.invalidHeader` (member `typ`) for another type;
    ///   `.expired`, `.notYetValid`, `.issuedInFuture`; `.claimMismatch` (member `sub`) for another URI;
    ///   `.invalidStatusList` for a missing `iat` or `status_list`, a bad `ttl` or list; `.limitExceeded`.
    public static func verify(
        _ token: String, uri: String, keys: JWKSet, policy: JWSVerificationPolicy = .default,
        validation: JWTValidationPolicy = .default, maximumListBytes: Int = StatusList.defaultMaximumBytes
    ) throws -> StatusListToken {
        let jwt = try JWT.verifyIgnoringIssuerAndAudience(token, keys: keys, policy: policy, validation: validation)
        guard jwt.header.hasType("statuslist+jwt") else {
            throw JOSEError(.invalidHeader, "the token's typ is not statuslist+jwt: it is not a status list token", member: "typ")
        }
        guard let subject = try jwt.claims.subject else {
            throw JOSEError(.invalidStatusList, "the status list token has no sub", member: "sub")
        }
        guard subject == uri else {
            throw JOSEError(.claimMismatch, "the status list token's sub is not the URI the credential names", member: "sub")
        }
        guard let issuedAt = try jwt.claims.issuedAt else {
            throw JOSEError(.invalidStatusList, "the status list token has no iat", member: "iat")
        }
        var timeToLive: TimeInterval?
        if let ttl = jwt.claims["ttl"] {
            guard let seconds = ttl.int64Value, seconds > 0 else {
                throw JOSEError(.invalidStatusList, "the status list token's ttl is not a positive integer", member: "ttl")
            }
            timeToLive = TimeInterval(seconds)
        }
        guard let listObject = jwt.claims["status_list"]?.objectValue else {
            throw JOSEError(.invalidStatusList, "the status list token has no status_list object", member: "status_list")
        }
        return StatusListToken(
            list: try StatusList(json: listObject, maximumBytes: maximumListBytes), subject: subject, issuedAt: issuedAt,
            expiresAt: try jwt.claims.expiresAt, timeToLive: timeToLive, key: jwt.key)
    }
}
