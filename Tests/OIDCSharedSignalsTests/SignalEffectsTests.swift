import Foundation
import JOSE
import OIDCSharedSignals
import Testing

/// What a SET does: ending sessions (a live session fails with `session_revoked` instead of refreshing, the store
/// is cleared, another user's session untouched, the caches purged), refreshing them, or only delivering the event;
/// and the observer's events, which never hold token contents.
@Suite("Shared Signals effects", .enabled(if: Transmitter.available))
struct SignalEffectsTests {
    /// A refresher that counts its calls and hands out `refreshed-N` tokens.
    final class CountingRefresher: TokenRefresher, @unchecked Sendable {
        let lock = NSLock()
        var calls = 0
        func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
            let n = lock.withLock {
                calls += 1; return calls
            }
            return TokenResponse(accessToken: "refreshed-\(n)", expiresIn: 3600, refreshToken: "rt-\(n)")
        }
        var count: Int { lock.withLock { calls } }
    }

    /// A session of `user` calling the transmitter's JWKS, with its own store.
    static func session(_ transmitter: Transmitter, refresher: CountingRefresher) throws -> (AuthenticatedSession, InMemoryTokenStore) {
        let store = InMemoryTokenStore(TokenResponse(accessToken: "at", expiresIn: 3600, refreshToken: "rt"))
        let session = try AuthenticatedSession(
            tokens: TokenResponse(accessToken: "at", expiresIn: 3600, refreshToken: "rt"), refresher: refresher,
            configuration: AuthenticatedSession.Configuration(
                allowedOrigins: [URL(string: transmitter.issuer)!], transport: transmitter.transport, store: store))
        return (session, store)
    }

    func send(_ session: AuthenticatedSession, _ transmitter: Transmitter) async -> String {
        do {
            return "\(try await session.send(TransportRequest(url: URL(string: transmitter.issuer + "/jwks")!)).status)"
        } catch let error as OIDCError {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    @Test(
        "session-revoked, credential-change, account-disabled, account-purged end alice's sessions; bob's stay",
        arguments: [
            "caep/event-type/session-revoked", "caep/event-type/credential-change", "risc/event-type/account-disabled", "risc/event-type/account-purged",
        ])
    func endingEvents(type: String) async throws {
        try await Transmitter.with { transmitter in
            let refresher = CountingRefresher()
            let (alice, aliceStore) = try Self.session(transmitter, refresher: refresher)
            let (bob, bobStore) = try Self.session(transmitter, refresher: refresher)
            let purged = Counter()
            let receiver = try await transmitter.receiver { configuration in
                configuration.sessions = { subject in
                    guard case .issuerSubject(_, let sub) = subject else { return [] }
                    return sub == "alice" ? [.session(alice), .store(aliceStore)] : [.session(bob), .store(bobStore)]
                }
                configuration.purgeCaches = { await purged.add($0) }
            }
            #expect(await send(alice, transmitter) == "200")
            let token = try await transmitter.sign(Transmitter.event("https://schemas.openid.net/secevent/" + type))
            let outcome = await receiver.process(token)
            #expect(outcome.error == nil && outcome.sessionsAffected == 2)
            #expect(await send(alice, transmitter) == "session_revoked")
            #expect(OIDCError.Code.sessionRevoked.category == .authenticateAgain)
            #expect(refresher.count == 0)  // ended, never refreshed
            #expect(await aliceStore.load() == nil)
            #expect(await alice.currentTokens == nil)
            #expect(await send(bob, transmitter) == "200")
            #expect(await bobStore.load() != nil)
            #expect(await purged.subjects == [.issuerSubject(issuer: "https://op.example", subject: "alice")])
            try await alice.inject(TokenResponse(accessToken: "after-login", expiresIn: 3600, refreshToken: "rt-2"))  // logged in again
            #expect(await send(alice, transmitter) == "200")
        }
    }

    @Test("token-claims-change and assurance-level-change make the next request refresh first", arguments: ["token-claims-change", "assurance-level-change"])
    func refreshingEvents(type: String) async throws {
        try await Transmitter.with { transmitter in
            let refresher = CountingRefresher()
            let (alice, _) = try Self.session(transmitter, refresher: refresher)
            let receiver = try await transmitter.receiver { configuration in configuration.sessions = { _ in [.session(alice)] } }
            let outcome = await receiver.process(try await transmitter.sign(Transmitter.event(Transmitter.caep + type)))
            #expect(outcome.error == nil && outcome.token?.event.effect == .refreshSessions)
            #expect(refresher.count == 0)  // nothing happens until the session is used
            #expect(await send(alice, transmitter) == "200")
            #expect(refresher.count == 1)
            #expect(await alice.currentTokens?.accessToken == "refreshed-1")
            #expect(await send(alice, transmitter) == "200")
            #expect(refresher.count == 1)  // once
        }
    }

    @Test("other events are delivered typed, with no effect on sessions; unknown types are readable")
    func deliveredEvents() async throws {
        try await Transmitter.with { transmitter in
            let touched = Counter()
            let receiver = try await transmitter.receiver { configuration in
                configuration.sessions = { _ in
                    await touched.add()
                    return []
                }
            }
            let cases: [(String, JSONObject, SecurityEvent.Kind)] = [
                (
                    Transmitter.caep + "device-compliance-change", ["current_status": "not-compliant", "previous_status": "compliant"],
                    .deviceComplianceChange(currentStatus: "not-compliant", previousStatus: "compliant")
                ),
                (Transmitter.caep + "session-established", [:], .sessionEstablished),
                (Transmitter.caep + "session-presented", [:], .sessionPresented),
                (
                    Transmitter.caep + "risk-level-change", ["principal": "USER", "current_level": "HIGH", "previous_level": "LOW"],
                    .riskLevelChange(principal: "USER", currentLevel: "HIGH", previousLevel: "LOW")
                ),
                (Transmitter.risc + "account-credential-change-required", [:], .accountCredentialChangeRequired),
                (Transmitter.risc + "account-enabled", [:], .accountEnabled),
                (Transmitter.risc + "identifier-changed", ["new-value": "new@example.com"], .identifierChanged(newValue: "new@example.com")),
                (Transmitter.risc + "identifier-recycled", [:], .identifierRecycled),
                (Transmitter.risc + "credential-compromise", ["credential_type": "password"], .credentialCompromise(credentialType: "password")),
                (Transmitter.risc + "opt-in", [:], .optInOrOut),
                (Transmitter.risc + "opt-out-initiated", [:], .optInOrOut),
                (Transmitter.risc + "opt-out-cancelled", [:], .optInOrOut),
                (Transmitter.risc + "opt-out-effective", [:], .optInOrOut),
                (Transmitter.ssf + "verification", ["state": "s-1"], .verification(state: "s-1")),
                (Transmitter.ssf + "stream-updated", ["status": "paused", "reason": "maintenance"], .streamUpdated(status: "paused", reason: "maintenance")),
                ("https://example.com/event-type/something-new", ["x": 1], .unknown),
            ]
            for (type, members, kind) in cases {
                let outcome = await receiver.process(try await transmitter.sign(Transmitter.event(type, members: members)))
                #expect(outcome.token?.event.kind == kind && outcome.token?.event.effect == .deliver, "\(type)")
                #expect(outcome.token?.event.type.rawValue == type && outcome.token?.event.members == members)
            }
            let ending: [(String, JSONObject, SecurityEvent.Kind)] = [
                (
                    Transmitter.caep + "credential-change", ["credential_type": "fido2-roaming", "change_type": "revoke"],
                    .credentialChange(credentialType: "fido2-roaming", changeType: "revoke")
                ),
                (Transmitter.risc + "account-disabled", ["reason": "hijacking"], .accountDisabled(reason: "hijacking")),
                (
                    Transmitter.caep + "assurance-level-change", ["namespace": "NIST-AAL", "current_level": "nist-aal1", "previous_level": "nist-aal2"],
                    .assuranceLevelChange(namespace: "NIST-AAL", currentLevel: "nist-aal1", previousLevel: "nist-aal2")
                ),
                (Transmitter.caep + "token-claims-change", ["claims": .object(["role": "ro-admin"])], .tokenClaimsChange(claims: ["role": "ro-admin"])),
            ]
            #expect(await touched.value == 0)
            for (type, members, kind) in ending {
                let outcome = await receiver.process(try await transmitter.sign(Transmitter.event(type, members: members)))
                #expect(outcome.token?.event.kind == kind, "\(type)")
            }
            #expect(await touched.value == ending.count)
        }
    }

    /// A store whose `clear` fails the first `failures` times, then works.
    actor FlakyStore: TokenStore {
        var failures: Int
        var tokens: TokenResponse? = TokenResponse(accessToken: "at", expiresIn: 3600, refreshToken: "rt")
        var clears = 0
        init(failures: Int) { self.failures = failures }
        func save(_ tokens: TokenResponse) async throws { self.tokens = tokens }
        func load() async throws -> TokenResponse? { tokens }
        func clear() async throws {
            clears += 1
            if failures > 0 {
                failures -= 1
                throw OIDCError(.tokenStoreFailure, "the disk is full")
            }
            tokens = nil
        }
    }

    @Test("push: a store that fails once: 503 with Retry-After, not acknowledged; the redelivery is acted on; a third delivery is a replay (202)")
    func failedEffectPushed() async throws {
        try await Transmitter.with { transmitter in
            let events = RecordingObserver()
            let store = FlakyStore(failures: 1)
            let receiver = try await transmitter.receiver { configuration in
                configuration.observer = events
                configuration.sessions = { _ in [.store(store)] }
            }
            let token = try await transmitter.sign(Transmitter.event(Transmitter.caep + "session-revoked"))
            let first = await receiver.receive(method: "POST", headers: Transmitter.pushHeaders, body: Array(token.utf8))
            #expect(first.response.status == 503 && first.response.headers["Retry-After"] == "10")
            #expect(first.outcome?.token != nil && first.outcome?.isReleased == true && first.outcome?.isAcknowledged == false)
            #expect(first.outcome?.error?.code == .tokenStoreFailure)
            #expect(
                events.events.last
                    == OIDCEvent(
                        kind: .securityEventActedOn, outcome: .failure(code: "token_store_failure"), origin: transmitter.issuer, detail: "session-revoked"))
            #expect(try await store.load() != nil)
            let second = await receiver.receive(method: "POST", headers: Transmitter.pushHeaders, body: Array(token.utf8))
            #expect(second.response.status == 202 && second.outcome?.error == nil && second.outcome?.sessionsAffected == 1)
            #expect(try await store.load() == nil)
            let third = await receiver.receive(method: "POST", headers: Transmitter.pushHeaders, body: Array(token.utf8))
            #expect(third.response.status == 202 && third.outcome?.error?.code == .replayedSecurityEventToken)
            #expect(await store.clears == 2)
        }
    }

    @Test("poll: a store that fails once: the SET is neither acknowledged nor in setErrs, comes again and is acted on, then acknowledged")
    func failedEffectPolled() async throws {
        try await Transmitter.with { transmitter in
            let store = FlakyStore(failures: 1)
            let receiver = try await transmitter.receiver { configuration in configuration.sessions = { _ in [.store(store)] } }
            let stream = try await receiver.createStream(.poll(eventsRequested: [.sessionRevoked]))
            let request = SharedSignalsReceiver.PollRequest(endpoint: try #require(stream.endpointURL))
            let jti = try #require(try await transmitter.control("emit", Transmitter.event(Transmitter.caep + "session-revoked"))["jti"]?.stringValue)
            let first = await receiver.poll(request)
            #expect(first.outcomes.count == 1 && first.outcomes.first?.isReleased == true)
            let second = await receiver.poll(request)  // reports nothing about it: the transmitter delivers it again
            #expect(second.outcomes.count == 1 && second.outcomes.first?.error == nil && second.outcomes.first?.token?.jwtID == jti)
            var log = try await transmitter.log()
            #expect(log["acks"] == .array([]) && log["set_errs"] == .object([:]))
            #expect(try await store.load() == nil)
            #expect(await store.clears == 2)
            let third = await receiver.poll(request)
            #expect(third.outcomes.isEmpty)
            log = try await transmitter.log()
            #expect(log["acks"] == .array([.string(jti)]) && log["queued"] == .integer(0))
        }
    }

    /// An application's own replay cache (it cannot release): the memory one behind a wrapper.
    struct OwnReplayCache: ReplayCache {
        let base = InMemoryReplayCache()
        func recordFirstUse(of identifier: String, scope: String, until expiry: Date, now: Date) async throws -> ReplayCacheOutcome {
            base.recordFirstUse(of: identifier, scope: scope, until: expiry, now: now)
        }
    }

    @Test("with a replay cache that cannot release, a failed effect is acknowledged (202) as before, the failure in the outcome")
    func failedEffectWithoutRelease() async throws {
        try await Transmitter.with { transmitter in
            let store = FlakyStore(failures: 1)
            let receiver = try await transmitter.receiver { configuration in
                configuration.replays = OwnReplayCache()
                configuration.sessions = { _ in [.store(store)] }
            }
            let token = try await transmitter.sign(Transmitter.event(Transmitter.caep + "session-revoked"))
            let answer = await receiver.receive(method: "POST", headers: Transmitter.pushHeaders, body: Array(token.utf8))
            #expect(answer.response.status == 202 && answer.outcome?.isAcknowledged == true && answer.outcome?.isReleased == false)
            #expect(answer.outcome?.error?.code == .tokenStoreFailure)
        }
    }

    @Test("observer: one received and one acted-on event per SET, a refused event with its code; no token contents")
    func observed() async throws {
        try await Transmitter.with { transmitter in
            let events = RecordingObserver()
            let receiver = try await transmitter.receiver { configuration in
                configuration.observer = events
                configuration.sessions = { _ in [.custom(end: {}, refresh: {})] }
            }
            let token = try await transmitter.sign(Transmitter.event(Transmitter.caep + "session-revoked", subject: "alice-secret-subject"))
            _ = await receiver.process(token)
            _ = await receiver.process(token)
            _ = await receiver.process(
                try await transmitter.sign(Transmitter.event(Transmitter.caep + "session-revoked", extra: ["claims": .object(["aud": "x"])])))
            let recorded = events.events.filter { $0.kind.rawValue.hasPrefix("set.") }
            #expect(recorded.map(\.kind) == [.securityEventReceived, .securityEventActedOn, .securityEventReceived, .securityEventRefused])
            #expect(recorded[1].detail == "session-revoked end_sessions 1")
            #expect(recorded[2].outcome == .failure(code: "replayed_security_event_token"))
            #expect(recorded[3].outcome == .failure(code: "audience_mismatch") && recorded[3].detail == "invalid_audience")
            #expect(recorded.allSatisfy { $0.origin == transmitter.issuer })
            let text = "\(recorded)"
            #expect(!text.contains("alice-secret-subject") && !text.contains(String(token.prefix(20))))
        }
    }
}

final class RecordingObserver: OIDCObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [OIDCEvent] = []
    func record(_ event: OIDCEvent) { lock.withLock { recorded.append(event) } }
    var events: [OIDCEvent] { lock.withLock { recorded } }
}
