import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A validated back-channel logout token: who logged out, at which issuer.
///
/// It names the end-user by ``subject``, the session by ``sessionID``, or both, as
/// OpenID Connect Back-Channel Logout 1.0 §2.4 defines. It holds no token text.
public struct LogoutToken: Sendable, CustomStringConvertible {
    /// The `events` member that makes a JWT a logout token.
    package static let backChannelLogoutEvent = "http://schemas.openid.net/event/backchannel-logout"

    /// `iss`
    public let issuer: String
    /// `sub`, when present.
    public let subject: String?
    /// `sid`, when present (at least one of ``subject`` and ``sessionID`` is).
    public let sessionID: String?
    /// `aud`, always as an array.
    public let audience: [String]
    /// `iat`
    public let issuedAt: Date
    /// `exp` (`nil` only under ``LogoutTokenValidator/ExpirationRule/optionalForDraftProviders``).
    public let expiresAt: Date?
    /// `jti`
    public let jwtID: String
    /// `events`, the whole object.
    public let events: JSONObject
    /// Every claim.
    public let claims: JWTClaims

    /// e.g. `LogoutToken(iss: "https://as", sub: "alice", sid: "s1")`.
    public var description: String {
        "LogoutToken(iss: \"\(issuer)\", sub: \(subject.map { "\"\($0)\"" } ?? "none"), sid: \(sessionID.map { "\"\($0)\"" } ?? "none"))"
    }
}

/// Validates logout tokens for one client, each at most once.
///
/// The rules are those of Back-Channel Logout 1.0 §2.6. A relying party built on ``OIDCClient``
/// calls ``OIDCClient/backChannelLogout(body:contentType:)`` instead, which uses the client's key cache.
/// In order: signature (allowed asymmetric algorithm, the issuer's keys) and the time
/// claims through JOSE (`exp` not passed, `iat` not in the future); `typ`, when present,
/// `logout+jwt`; `iss` exact; `aud` containing the client id; `iat` present and less than
/// `maximumAge` + `leeway` ago; `jti` present; `events` an object with the back-channel logout
/// member (itself an object); `sub` and/or `sid`; no `nonce`; `exp` present (unless
/// ``ExpirationRule/optionalForDraftProviders``); and last, `jti` not already recorded for
/// this issuer in `replays` (recorded only once every other check passed): a replay is
/// `replayed_logout_token`; an issuer whose share of the cache is full gets `replay_cache_full` (and an
/// ``/OIDCCore/OIDCEvent/Kind/replayCacheFull`` event), never a replay.
///
/// The replay window is the acceptance window: the `jti` is recorded until the later of
/// `iat` + `maximumAge` + `leeway` and, when present, `exp` + `leeway` — the last instants at
/// which this validator would still accept the token — on the validator's `clock`. So a token
/// is refused as a replay for as long as it could otherwise pass, whichever ``/OIDCCore/ReplayCache`` holds it.
public struct LogoutTokenValidator: Sendable {
    /// Which `typ` header values are accepted.
    public enum TypeRule: Sendable, Hashable {
        /// `logout+jwt` (or `application/logout+jwt`) when `typ` is present (the default, §2.4).
        case logoutJWTWhenPresent
        /// Also `JWT`, as providers built on the drafts send (glewlwyd 2.7.5): an explicit opt-in.
        /// Such a token still needs the logout `events` member and no `nonce`, so an ID Token cannot pass.
        case alsoAcceptingPlainJWT
    }

    /// Whether `exp` must be present.
    public enum ExpirationRule: Sendable, Hashable {
        /// `exp` required (the default): Back-Channel Logout 1.0 §2.4 (final, errata set 1) makes it
        /// REQUIRED and §2.6 validates it as for ID Tokens.
        case required
        /// `exp` checked when present, not required: for providers built on the drafts without it
        /// (glewlwyd 2.7.5, draft 06). An explicit opt-out; `iat` and the replay window still bound the age.
        case optionalForDraftProviders
    }

    /// The issuer identifier `iss` must equal.
    package let issuer: String
    /// This client's id, which `aud` must contain.
    package let clientID: String
    /// The issuer's keys.
    package let keys: IssuerKeys
    /// Where `jti` values are recorded (one process: ``InMemoryReplayCache``; replicas: a shared cache
    /// such as `OIDCPostgres`'s `PostgresReplayCache`).
    package let replays: any ReplayCache
    /// The oldest a token may be, in seconds after its `iat` (plus `leeway`); default 600.
    /// NaN or negative counts as 0; at most ``LogoutTokenValidator/maximumAgeLimit``.
    package let maximumAge: TimeInterval
    /// Allowed algorithms (default every asymmetric one).
    package let allowedAlgorithms: Set<JWSAlgorithm>
    /// Allowed clock skew in seconds, as the time checks use it: NaN or negative counts as 0,
    /// above one day as one day (the JWT validation's leeway rule).
    package let leeway: TimeInterval
    /// The `typ` rule.
    package let typeRule: TypeRule
    /// The `exp` rule.
    package let expirationRule: ExpirationRule
    /// The current time.
    package let clock: @Sendable () -> Date

    /// Receives one ``OIDCEvent/Kind/logoutTokenValidation`` event per token, accepted or refused with its code.
    /// `nil` (default): none, and no work beyond a `nil` check.
    package let observer: (any OIDCObserver)?

    /// The largest `maximumAge` (one day): a longer configured age counts as this, so no value
    /// (infinity included) switches the age check off or asks a cache to remember forever.
    public static let maximumAgeLimit: TimeInterval = 86_400

    /// Creates a validator.
    /// - Parameters:
    ///   - issuer: the `iss` a token must carry.
    ///   - clientID: this client's id, which `aud` must contain.
    ///   - keys: the issuer's keys.
    ///   - replays: where `jti` values are recorded (default: a new ``/OIDCCore/InMemoryReplayCache``, on this validator's clock
    ///     like every cache: the validator passes the time).
    ///   - maximumAge: the oldest a token may be after its `iat`, in seconds (default 600), besides the leeway.
    ///   - allowedAlgorithms: allowed signature algorithms (asymmetric ones only).
    ///   - leeway: allowed clock skew, in seconds.
    ///   - typeRule: the `typ` rule.
    ///   - expirationRule: whether `exp` is required.
    ///   - clock: the current time, for every time check and for the replay records.
    ///   - observer: receives one event per token; `nil` (default): none.
    public init(
        issuer: String, clientID: String, keys: IssuerKeys, replays: any ReplayCache = InMemoryReplayCache(),
        maximumAge: TimeInterval = 600,
        allowedAlgorithms: Set<JWSAlgorithm> = IssuerKeys.asymmetricAlgorithms, leeway: TimeInterval = 60,
        typeRule: TypeRule = .logoutJWTWhenPresent, expirationRule: ExpirationRule = .required, clock: @escaping @Sendable () -> Date = { Date() },
        observer: (any OIDCObserver)? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.keys = keys
        self.replays = replays
        self.maximumAge = maximumAge.isNaN ? 0 : min(max(0, maximumAge), Self.maximumAgeLimit)
        self.allowedAlgorithms = allowedAlgorithms.intersection(IssuerKeys.asymmetricAlgorithms)
        self.leeway = Leeway.effective(leeway)
        self.typeRule = typeRule
        self.expirationRule = expirationRule
        self.clock = clock
        self.observer = observer
    }

    /// Validates `token`.
    /// An unanswered replay check never passes: what `replays` throws is thrown.
    func validateToken(_ token: String) async throws -> LogoutToken {
        let validation = JWTValidationPolicy(
            clock: clock, leeway: leeway, issuer: issuer, audience: clientID,
            requiredClaims: ["iat", "jti", "events"])
        let jwt = try await keys.verify(
            token, policy: JWSVerificationPolicy(allowedAlgorithms: allowedAlgorithms), validation: validation,
            kind: .logoutToken)
        if jwt.header.type != nil, !jwt.header.hasType("logout+jwt"), !(typeRule == .alsoAcceptingPlainJWT && jwt.header.hasType("JWT")) {
            throw OIDCError(.unexpectedTokenType, "the logout token's typ is not logout+jwt")
        }
        let claims = jwt.claims
        func invalid(_ reason: String) -> OIDCError { OIDCError(.invalidLogoutToken, reason) }
        guard let issuedAt = try ClaimErrors.read(kind: .logoutToken, { try claims.issuedAt }) else { throw invalid("the logout token has no \"iat\"") }
        let now = clock()
        // Accepted while now < iat + maximumAge + leeway: the instant that ends acceptance also ends the replay record.
        let acceptedUntil = issuedAt.addingTimeInterval(maximumAge + leeway)
        guard now < acceptedUntil else {
            throw invalid("the logout token was issued longer ago than the maximum age (\(maximumAge.wholeText) s)")
        }
        guard let jti = try ClaimErrors.read(kind: .logoutToken, { try claims.jwtID }), !jti.isEmpty else { throw invalid("the logout token has no \"jti\"") }
        guard let events = claims["events"]?.objectValue else { throw invalid("the logout token's \"events\" is not an object") }
        guard events[LogoutToken.backChannelLogoutEvent]?.objectValue != nil else {
            throw invalid("the logout token's \"events\" has no back-channel logout member (an object)")
        }
        let subject = try ClaimErrors.read(kind: .logoutToken) { try claims.subject }
        let sessionID = try ClaimErrors.read(kind: .logoutToken) { try claims.string("sid") }
        guard subject != nil || sessionID != nil else { throw invalid("the logout token has neither \"sub\" nor \"sid\"") }
        guard claims["nonce"] == nil else { throw invalid("the logout token has a \"nonce\", which is forbidden (§2.4)") }
        let audience = try ClaimErrors.read(kind: .logoutToken) { try claims.audience } ?? []
        let expiresAt = try ClaimErrors.read(kind: .logoutToken) { try claims.expiresAt }
        guard expiresAt != nil || expirationRule == .optionalForDraftProviders else {
            throw invalid("the logout token has no \"exp\" (Back-Channel Logout 1.0 §2.4)")
        }
        // exp is accepted while now < exp + leeway (JOSE's rule); the record lasts until the later end.
        let recordUntil = max(acceptedUntil, expiresAt.map { $0.addingTimeInterval(leeway) } ?? acceptedUntil)
        try await replays.recordOnce(
            jti, scope: issuer, until: recordUntil, now: now, what: "this logout token", observer: observer,
            replayed: OIDCError(.replayedLogoutToken, "a logout token with this jti from this issuer was already received"))
        return LogoutToken(
            issuer: issuer, subject: subject, sessionID: sessionID, audience: audience, issuedAt: issuedAt,
            expiresAt: expiresAt, jwtID: jti, events: events, claims: claims)
    }
}
