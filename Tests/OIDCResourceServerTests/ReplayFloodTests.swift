import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// Issue 36: one client flooding fresh DPoP proof `jti`s (with its own valid bound token) fills only its
/// key's share of the replay cache; every other client's proofs and the issuer's logout tokens still pass,
/// and the flooder is told `replay_cache_full`, never `dpop_proof_replayed`.
@Suite("Replay cache: a flood from one key fills only its share")
struct ReplayFloodTests {
    static let now = Fixtures.now
    static let uri = URL(string: "https://rs.example/api/items")!

    final class Events: OIDCObserver {
        let events = Locked([OIDCEvent]())
        func record(_ event: OIDCEvent) { events.withLock { $0.append(event) } }
        func count(_ kind: OIDCEvent.Kind, _ outcome: OIDCEvent.Outcome) -> Int {
            events.withLock { $0.filter { $0.kind == kind && $0.outcome == outcome }.count }
        }
    }

    static func logoutToken(jti: String) throws -> String {
        try Fixtures.sign(
            [
                "iss": .string(Fixtures.issuer), "aud": .string(Fixtures.clientID), "iat": .integer(Int64(now.timeIntervalSince1970)),
                "exp": .integer(Int64(now.timeIntervalSince1970) + 120), "jti": .string(jti), "sub": "alice",
                "events": .object([LogoutToken.backChannelLogoutEvent: .object([:])]),
            ], typ: "logout+jwt")
    }

    @Test(
        "100 000 proofs from one key with its bound token: another client's fresh proof and a never-seen logout token are accepted (were dpop_proof_replayed and replayed_logout_token)"
    )
    func floodFromOneKey() async throws {
        let shared = InMemoryReplayCache()  // the defaults: 100 000 in all, 10 000 per scope
        let events = Events()
        let proofs = DPoPProofValidator(maximumAge: 300, leeway: 60, replays: .cache(shared), clock: { Self.now }, observer: events)
        let logout = LogoutTokenValidator(
            issuer: Fixtures.issuer, clientID: Fixtures.clientID, keys: .keySet(try Fixtures.publicKeys()),
            replays: shared, clock: Fixtures.clock, observer: events)
        let attacker = try DPoPKey.generate(), attackerToken = "attacker's-own-bound-token"
        let attackerPresents = DPoPProofValidator.Presentation.accessToken(attackerToken, boundTo: .thumbprint(attacker.thumbprint))

        // The flood: the first 1 000 proofs through the validator (real proofs, each a fresh jti) ...
        for i in 0..<1_000 {
            let proof = try attacker.proof(method: "GET", url: Self.uri, accessToken: attackerToken, now: Self.now)
            _ = try await proofs.validate(proof, for: .request(method: "GET", uri: Self.uri), nonce: .notRequired, presenting: attackerPresents)
            if i == 0 { #expect(shared.count == 1) }
        }
        // ... the other 99 000 recorded as the validator records a proof of that key (scope: its thumbprint,
        // until the proof could no longer pass the iat rule), without signing each.
        let retention = proofs.replayRetention(issuedAt: Self.now)
        var outcomes: [ReplayCacheOutcome: Int] = [:]
        for i in 0..<99_000 {
            outcomes[shared.recordFirstUse(of: "flood-\(i)", scope: attacker.thumbprint, until: retention, now: Self.now), default: 0] += 1
        }
        #expect(outcomes == [.firstUse: 9_000, .full: 90_000], "only the key's share is filled")
        #expect(shared.count == 10_000)

        // The flooder's next fresh proof: replay_cache_full (an event of its own), not a replay.
        let next = try attacker.proof(method: "GET", url: Self.uri, accessToken: attackerToken, now: Self.now)
        await expectCode(.replayCacheFull) {
            _ = try await proofs.validate(next, for: .request(method: "GET", uri: Self.uri), nonce: .notRequired, presenting: attackerPresents)
        }
        #expect(events.count(.replayCacheFull, .failure(code: "replay_cache_full")) == 1)
        #expect(events.count(.dpopProofValidation, .failure(code: "replay_cache_full")) == 1)

        // Another client, its own key and bound token: its fresh proof passes; a replay of it is still a replay.
        let honest = try DPoPKey.generate(), honestToken = "honest-token"
        let honestPresents = DPoPProofValidator.Presentation.accessToken(honestToken, boundTo: .thumbprint(honest.thumbprint))
        let fresh = try honest.proof(method: "GET", url: Self.uri, accessToken: honestToken, now: Self.now)
        let verified = try await proofs.validate(fresh, for: .request(method: "GET", uri: Self.uri), nonce: .notRequired, presenting: honestPresents)
        #expect(verified.thumbprint == honest.thumbprint)
        await expectCode(.dpopProofReplayed) {
            _ = try await proofs.validate(fresh, for: .request(method: "GET", uri: Self.uri), nonce: .notRequired, presenting: honestPresents)
        }

        // A never-seen logout token, through the same cache: accepted; sent again: replayed_logout_token.
        let token = try Self.logoutToken(jti: "logout-after-flood")
        let loggedOut = try await logout.validate(token)
        #expect(loggedOut.jwtID == "logout-after-flood")
        await expectCode(.replayedLogoutToken) { _ = try await logout.validate(token) }
        #expect(events.count(.replayCacheFull, .failure(code: "replay_cache_full")) == 1)
    }

    /// A cache that is always full.
    struct FullCache: ReplayCache {
        func recordFirstUse(of identifier: String, scope: String, until expiry: Date, now: Date) async throws -> ReplayCacheOutcome { .full }
    }

    @Test("a full cache's answer is replay_cache_full at the logout validator too, with its event, never replayed_logout_token")
    func logoutFull() async throws {
        let events = Events()
        let logout = LogoutTokenValidator(
            issuer: Fixtures.issuer, clientID: Fixtures.clientID, keys: .keySet(try Fixtures.publicKeys()),
            replays: FullCache(), clock: Fixtures.clock, observer: events)
        await expectCode(.replayCacheFull) { _ = try await logout.validate(try Self.logoutToken(jti: "x")) }
        #expect(events.count(.replayCacheFull, .failure(code: "replay_cache_full")) == 1)
        #expect(events.count(.logoutTokenValidation, .failure(code: "replay_cache_full")) == 1)
    }
}
