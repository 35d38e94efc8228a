import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A validated Security Event Token (RFC 8417, SSF 1.0 §4): who sent it, about whom, and its one event.
///
/// It holds no token text.
public struct SecurityEventToken: Sendable, CustomStringConvertible {
    /// `iss`: the transmitter.
    public let issuer: String
    /// `jti`
    public let jwtID: String
    /// `iat`
    public let issuedAt: Date
    /// `aud`, always as an array (empty when absent).
    public let audience: [String]
    /// The subject: the top-level `sub_id` (SSF 1.0 §4.1.2, RFC 9493) or, for transmitters built on the drafts,
    /// the event's `subject` member.
    public let subject: SubjectIdentifier
    /// `txn`, the transaction identifier, when present.
    public let transaction: String?
    /// The one event of `events`.
    public let event: SecurityEvent
    /// Every claim.
    public let claims: JWTClaims

    /// e.g. `SecurityEventToken(iss: "https://tx", jti: "j1", event: …/session-revoked, subject: iss_sub(…))`.
    public var description: String {
        "SecurityEventToken(iss: \"\(issuer)\", jti: \"\(jwtID)\", event: \(event.type), subject: \(subject))"
    }
}

/// Validates Security Event Tokens from one transmitter, each at most once: the checks beside the logout token's.
///
/// In order: signature (an allowed asymmetric algorithm, never `none`, the transmitter's keys through
/// ``/OIDCCore/IssuerKeys``, whose cache follows rotation) and JOSE's time rules (`iat` not in the future beyond
/// the leeway, `exp` and `nbf` when present); `typ` `secevent+jwt` (or `application/secevent+jwt`), required;
/// `iss` exact; `aud` containing the receiver's audience; `iat` present and less than `maximumAge` + `leeway` ago;
/// `jti` present; `events` an object with exactly one member, itself an object; a subject (`sub_id`, or the event's
/// `subject`); and last, `jti` not already recorded for this transmitter in `replays` (through the same
/// ``/OIDCCore/ReplayCache`` step as logout tokens): a replay is `.replayedSecurityEventToken`.
package struct SecurityEventTokenValidator: Sendable {
    package let issuer: String
    package let audience: String
    package let keys: IssuerKeys
    package let replays: any ReplayCache
    package let maximumAge: TimeInterval
    package let allowedAlgorithms: Set<JWSAlgorithm>
    package let leeway: TimeInterval
    package let clock: @Sendable () -> Date

    package init(
        issuer: String, audience: String, keys: IssuerKeys, replays: any ReplayCache, maximumAge: TimeInterval,
        allowedAlgorithms: Set<JWSAlgorithm>, leeway: TimeInterval, clock: @escaping @Sendable () -> Date
    ) {
        self.issuer = issuer
        self.audience = audience
        self.keys = keys
        self.replays = replays
        self.maximumAge = maximumAge.isNaN ? 0 : min(max(0, maximumAge), LogoutTokenValidator.maximumAgeLimit)
        self.allowedAlgorithms = allowedAlgorithms.intersection(IssuerKeys.asymmetricAlgorithms)
        self.leeway = Leeway.effective(leeway)
        self.clock = clock
    }

    /// Validates `token` and records its `jti`.
    /// - Parameter observer: receives a ``/OIDCCore/OIDCEvent/Kind/replayCacheFull`` event when the cache is full.
    /// - Throws: ``/OIDCCore/OIDCError``: signature and key codes, `.issuerMismatch`, `.audienceMismatch`,
    ///   `.issuedInFuture`, `.unexpectedTokenType`, `.invalidSecurityEventToken`, `.securityEventCount`,
    ///   `.replayedSecurityEventToken`; what `replays` throws when it cannot answer.
    package func validate(_ token: String, observer: (any OIDCObserver)?) async throws -> SecurityEventToken {
        func invalid(_ reason: String) -> OIDCError { OIDCError(.invalidSecurityEventToken, reason) }
        let validation = JWTValidationPolicy(clock: clock, leeway: leeway, issuer: issuer, audience: audience)
        let jwt: JWT
        do {
            jwt = try await keys.verify(token, policy: JWSVerificationPolicy(allowedAlgorithms: allowedAlgorithms), validation: validation)
        } catch let error as OIDCError where error.code == .missingAccessTokenClaim {
            throw OIDCError(.invalidSecurityEventToken, error.reason, joseError: error.joseError)  // iss or aud missing
        }
        guard let type = jwt.header.type?.lowercased(), type == "secevent+jwt" || type == "application/secevent+jwt" else {
            throw OIDCError(.unexpectedTokenType, "the Security Event Token's typ is not secevent+jwt (RFC 8417 §2.3, SSF 1.0 §4.1.1)")
        }
        let claims = jwt.claims
        func read<T>(_ body: () throws -> T?) throws -> T? {
            do { return try body() } catch let error as JOSEError { throw OIDCError(.invalidSecurityEventToken, error.reason, joseError: error) }
        }
        guard let issuedAt = try read({ try claims.issuedAt }) else { throw invalid("the Security Event Token has no \"iat\"") }
        let now = clock()
        let acceptedUntil = issuedAt.addingTimeInterval(maximumAge + leeway)
        guard now < acceptedUntil else {
            throw invalid("the Security Event Token was issued longer ago than the maximum age (\(maximumAge.wholeText) s)")
        }
        guard let jti = try read({ try claims.jwtID }), !jti.isEmpty else { throw invalid("the Security Event Token has no \"jti\"") }
        guard let events = claims["events"]?.objectValue else { throw invalid("the Security Event Token's \"events\" is missing or not an object") }
        guard events.count == 1, let member = events.members.first else {
            throw OIDCError(.securityEventCount, "the Security Event Token carries \(events.count) events; SSF 1.0 §4.1.8 allows exactly one")
        }
        guard let eventMembers = member.value.objectValue else { throw invalid("the Security Event Token's event is not an object") }
        let subject: SubjectIdentifier
        if let subID = claims["sub_id"] {
            guard let object = subID.objectValue else { throw invalid("the Security Event Token's \"sub_id\" is not an object") }
            subject = try SubjectIdentifier(json: object)
        } else if let legacy = eventMembers["subject"] {
            guard let object = legacy.objectValue else { throw invalid("the event's \"subject\" is not an object") }
            subject = try SubjectIdentifier(json: object)
        } else {
            throw invalid("the Security Event Token names no subject (no \"sub_id\", no event \"subject\")")
        }
        let expiresAt = try read { try claims.expiresAt }
        let recordUntil = max(acceptedUntil, expiresAt.map { $0.addingTimeInterval(leeway) } ?? acceptedUntil)
        try await replays.recordOnce(
            jti, scope: issuer, until: recordUntil, now: now, what: "this Security Event Token", observer: observer,
            replayed: OIDCError(.replayedSecurityEventToken, "a Security Event Token with this jti from this transmitter was already received"))
        return SecurityEventToken(
            issuer: issuer, jwtID: jti, issuedAt: issuedAt, audience: (try? claims.audience) ?? [], subject: subject,
            transaction: try read { try claims.string("txn") }, event: SecurityEvent(type: SecurityEventType(rawValue: member.name), members: eventMembers),
            claims: claims)
    }
}

extension OIDCError {
    /// The RFC 8935 §2.4 `err` code a receiver answers for this error: `invalid_key` for signature and key failures,
    /// `invalid_issuer`, `invalid_audience`, `authentication_failed` for a push without the stream's authorization,
    /// `invalid_request` for everything else.
    public var deliveryErrorCode: String {
        switch code {
        case .invalidSignature, .signingKeyNotFound, .unsupportedAlgorithm, .algorithmNotAllowed: return "invalid_key"
        case .issuerMismatch: return "invalid_issuer"
        case .audienceMismatch: return "invalid_audience"
        case .pushAuthenticationFailed: return "authentication_failed"
        default:
            if let jose = joseError?.code, jose == .keyNotFound || jose == .invalidSignature { return "invalid_key" }
            return "invalid_request"
        }
    }
}
