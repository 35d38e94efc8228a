import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Shared Signals receiver for one transmitter: it validates each Security Event Token once, acts on it, and
/// manages the stream.
///
/// The front door of `OIDCSharedSignals`. Push (RFC 8935): a route hands ``receive(method:headers:body:)`` the
/// request and sends back the answer. Poll (RFC 8936): ``poll(_:)`` fetches, processes and acknowledges. Either way
/// every SET goes through ``process(_:)``: one validation (``SecurityEventToken``), a repeated `jti` acknowledged
/// and never acted on twice, CAEP session-revoked, credential-change and RISC account-disabled, account-purged
/// ending the subject's sessions (``Configuration/sessions``), CAEP token-claims-change and assurance-level-change
/// making them refresh, and ``Configuration/purgeCaches`` called for both.
public final class SharedSignalsReceiver: Sendable {
    /// What the receiver needs; every default is the safe one.
    public struct Configuration: Sendable {
        /// The transmitter's identifier (its configuration's `issuer`, each SET's `iss`).
        public var transmitter: String
        /// The audience each SET's `aud` must contain (this receiver's identifier, e.g. its base URL).
        public var audience: String
        /// The transmitter's signing keys; `nil` (default): a ``/OIDCCore/JWKSetCache`` of its `jwks_uri`.
        public var keys: IssuerKeys?
        /// The exact `Authorization` header the stream was created with (push); `nil`: none is required.
        public var pushAuthorization: String?
        /// The access token for the transmitter's management and poll endpoints; `nil`: none sent.
        public var managementToken: ManagementToken?
        /// Where each SET's `jti` is recorded (one process: the default; replicas: a shared cache such as `OIDCPostgres`'s).
        public var replays: any ReplayCache = InMemoryReplayCache()
        /// The oldest a SET may be, in seconds after its `iat` (default one day, the most); the replay record lasts as long.
        public var maximumAge: TimeInterval = LogoutTokenValidator.maximumAgeLimit
        /// Allowed signature algorithms (asymmetric ones only, whatever is given).
        public var allowedAlgorithms: Set<JWSAlgorithm> = IssuerKeys.asymmetricAlgorithms
        /// Allowed clock skew in seconds.
        public var leeway: TimeInterval = 60
        /// The current time.
        public var clock: @Sendable () -> Date = { Date() }
        /// The transport (default: ``/OIDCTLSTransport/LibSSLTransport``).
        public var transport: (any HTTPTransport)?
        /// Receives one event per received, refused and acted-on SET (`OIDCEvent.Kind.securityEventReceived`,
        /// …); never a token's contents.
        public var observer: (any OIDCObserver)?
        /// The hook: where the application's sessions of a subject are. Default: none.
        public var sessions: @Sendable (SubjectIdentifier) async throws -> [SessionTarget] = { _ in [] }
        /// Drops what the application's caches hold for a subject (a resource server's verified-token and introspection
        /// caches), called after sessions are ended or marked for refresh; `nil` (default): nothing to drop.
        public var purgeCaches: (@Sendable (SubjectIdentifier) async throws -> Void)?

        /// A configuration for `transmitter`'s SETs addressed to `audience`.
        public init(transmitter: String, audience: String) {
            self.transmitter = transmitter
            self.audience = audience
        }
    }

    /// The access token the transmitter's management and poll endpoints require.
    public enum ManagementToken: Sendable {
        /// A token the application holds.
        case bearer(String)
        /// The client's own client-credentials token source (cached, refreshed when it expires).
        case clientCredentials(ClientCredentialsTokenSource)
    }

    /// One place where the application holds a session of the subject.
    public enum SessionTarget: Sendable {
        /// A live session: ended with ``/OIDCSession/AuthenticatedSession/end(because:)`` (its next request throws
        /// `session_revoked`), or told to refresh first.
        case session(AuthenticatedSession)
        /// A token store (memory, file, PostgreSQL): cleared when sessions end; nothing to do on a refresh.
        case store(any TokenStore)
        /// Anything else, such as `PostgresSessionIndex.deleteSessions(issuer:subject:sessionID:)` on every replica.
        case custom(end: @Sendable () async throws -> Void, refresh: @Sendable () async throws -> Void)
    }

    /// What became of one SET.
    public struct Outcome: Sendable {
        /// The validated SET; `nil` when refused or repeated.
        public let token: SecurityEventToken?
        /// Why it was refused (invalid input, or unavailable keys or replay cache), or `.replayedSecurityEventToken`,
        /// or why acting on it failed (then ``token`` is set); `nil` when accepted and acted on.
        public let error: OIDCError?
        /// How many session targets it ended or marked for refresh.
        public let sessionsAffected: Int
        /// Acting on the validated SET failed and its `jti` was released from the replay cache: it is not
        /// acknowledged, so the transmitter delivers it again and that delivery is acted on. `false` when the effect
        /// ran, and when the replay cache cannot release (an application's own ``/OIDCCore/ReplayCache``): then the
        /// SET is acknowledged and the failure is only in ``error``.
        public let isReleased: Bool

        init(token: SecurityEventToken?, error: OIDCError?, sessionsAffected: Int, isReleased: Bool = false) {
            self.token = token
            self.error = error
            self.sessionsAffected = sessionsAffected
            self.isReleased = isReleased
        }

        /// Whether the transmitter is told the SET was received: accepted and acted on (or acting failed and could
        /// not be undone, see ``isReleased``), or repeated.
        public var isAcknowledged: Bool { !isReleased && (token != nil || error?.code == .replayedSecurityEventToken) }
    }

    /// The answer to a push request, and what became of its SET.
    public struct PushAnswer: Sendable {
        /// The response to send: 202 empty, 400 with `{"err", "description"}`, 401, 405, or 503 with `Retry-After`
        /// (deliver it again).
        public let response: TransportResponse
        /// What became of the SET; `nil` when the request carried none (wrong method or authorization).
        public let outcome: Outcome?
    }

    /// The transmitter's configuration.
    public let transmitter: TransmitterMetadata
    /// The configuration.
    public let configuration: Configuration
    let validator: SecurityEventTokenValidator
    let transport: any HTTPTransport
    let ledger = PollLedger()

    /// Reads `configuration.transmitter`'s configuration (``TransmitterMetadata/discover(_:transport:)``) and
    /// makes a receiver.
    /// - Throws: what discovery throws; `.transmitterEndpointMissing` when no keys are given and it has no `jwks_uri`.
    public static func discover(_ configuration: Configuration) async throws -> SharedSignalsReceiver {
        let transport = try configuration.transport ?? LibSSLTransport()
        let metadata = try await TransmitterMetadata.discover(configuration.transmitter, transport: transport)
        return try SharedSignalsReceiver(transmitter: metadata, configuration: configuration)
    }

    /// A receiver for a transmitter whose configuration is already read.
    /// - Throws: ``/OIDCCore/OIDCError`` `.transmitterIssuerMismatch` when `transmitter` is another issuer than the
    ///   configuration's; `.transmitterEndpointMissing` when no keys are given and it has no `jwks_uri`.
    public init(transmitter: TransmitterMetadata, configuration: Configuration) throws {
        guard transmitter.issuer == configuration.transmitter else {
            throw OIDCError(.transmitterIssuerMismatch, "the transmitter configuration is another issuer's than the receiver's transmitter")
        }
        let transport = try configuration.transport ?? LibSSLTransport()
        let keys: IssuerKeys
        if let given = configuration.keys {
            keys = given
        } else if let jwksURI = transmitter.jwksURI {
            keys = .cache(try JWKSetCache(jwksURI: jwksURI, issuer: transmitter.issuer, transport: transport, observer: configuration.observer))
        } else {
            throw OIDCError(.transmitterEndpointMissing, "the transmitter configuration has no jwks_uri and no keys were given")
        }
        self.transmitter = transmitter
        self.configuration = configuration
        self.transport = transport
        self.validator = SecurityEventTokenValidator(
            issuer: configuration.transmitter, audience: configuration.audience, keys: keys, replays: configuration.replays,
            maximumAge: configuration.maximumAge, allowedAlgorithms: configuration.allowedAlgorithms, leeway: configuration.leeway,
            clock: configuration.clock)
    }

    /// Validates one SET and acts on it: the one path of pushed and polled SETs.
    ///
    /// Never throws: a refusal, a repeat and a failure to act are in the outcome.
    public func process(_ token: String) async -> Outcome {
        let origin = Observation.origin(of: configuration.transmitter)
        let observer = configuration.observer
        let validated: SecurityEventToken
        do {
            validated = try await validator.validate(token, observer: observer)
        } catch {
            let refusal = error as? OIDCError ?? OIDCError(.invalidSecurityEventToken, "the Security Event Token could not be checked")
            if refusal.code == .replayedSecurityEventToken {
                observer?.record(OIDCEvent(kind: .securityEventReceived, outcome: .failure(code: refusal.code.rawValue), origin: origin))
            } else {
                observer?.record(
                    OIDCEvent(kind: .securityEventRefused, outcome: .failure(code: refusal.code.rawValue), origin: origin, detail: refusal.deliveryErrorCode))
            }
            return Outcome(token: nil, error: refusal, sessionsAffected: 0)
        }
        let name = validated.event.type.shortName
        observer?.record(OIDCEvent(kind: .securityEventReceived, outcome: .success, origin: origin, detail: name))
        let effect = validated.event.effect
        guard effect != .deliver else { return Outcome(token: validated, error: nil, sessionsAffected: 0) }
        do {
            let count = try await act(effect, on: validated)
            observer?.record(OIDCEvent(kind: .securityEventActedOn, outcome: .success, origin: origin, detail: "\(name) \(effect.rawValue) \(count)"))
            return Outcome(token: validated, error: nil, sessionsAffected: count)
        } catch {
            let failure = error as? OIDCError ?? OIDCError(.tokenStoreFailure, "acting on the Security Event Token failed: \(type(of: error))")
            observer?.record(OIDCEvent(kind: .securityEventActedOn, outcome: .failure(code: failure.code.rawValue), origin: origin, detail: name))
            // Not lost: its jti is forgotten, so the transmitter's next delivery of it is acted on (a SET handled
            // successfully stays recorded and is refused as a replay).
            var released = false
            if let cache = configuration.replays as? any ReleasableReplayCache {
                released = (try? await cache.release(validated.jwtID, scope: validator.issuer)) != nil
            }
            return Outcome(token: validated, error: failure, sessionsAffected: 0, isReleased: released)
        }
    }

    /// Ends or refreshes the subject's sessions, then purges the caches.
    private func act(_ effect: SecurityEvent.Effect, on token: SecurityEventToken) async throws -> Int {
        let targets = try await configuration.sessions(token.subject)
        let reason = OIDCError(.sessionRevoked, "the session was ended by a \(token.event.type.shortName) event from the transmitter")
        for target in targets {
            switch (target, effect) {
            case (.session(let session), .endSessions): await session.end(because: reason)
            case (.session(let session), _): await session.requireRefresh()
            case (.store(let store), .endSessions): try await store.clear()
            case (.store, _): break
            case (.custom(let end, _), .endSessions): try await end()
            case (.custom(_, let refresh), _): try await refresh()
            }
        }
        try await configuration.purgeCaches?(token.subject)
        return targets.count
    }
}

extension SecurityEventType {
    /// The last path segment of the URI (`session-revoked`), for events and logs.
    var shortName: String { String((rawValue.split(separator: "/").last ?? "").prefix(64)) }
}

extension OIDCEvent.Kind {
    /// A Security Event Token was validated (success, detail: its event type's short name), or was a repeat
    /// (failure `replayed_security_event_token`). Never the token or its subject.
    public static let securityEventReceived = OIDCEvent.Kind(rawValue: "set.received")
    /// A Security Event Token was refused: failure with the error code, detail the RFC 8935 `err`.
    public static let securityEventRefused = OIDCEvent.Kind(rawValue: "set.refused")
    /// A Security Event Token was acted on: detail `TYPE EFFECT COUNT` (e.g. `session-revoked end_sessions 2`), or the
    /// failure's code.
    public static let securityEventActedOn = OIDCEvent.Kind(rawValue: "set.acted")
}
