import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// The verified-token cache (issue 33): its six rules, through the validator's one path and the front door.
@Suite("Verified-token cache")
struct VerifiedTokenCacheTests {
    static let url = URL(string: "https://api.example/items")!

    /// A clock the test moves.
    final class TestClock: Sendable {
        private let time = Locked(Fixtures.now)
        var now: Date { time.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }
        var clock: @Sendable () -> Date { { self.now } }
    }

    /// Serves a JWK Set the test replaces.
    final class KeySetServer: Sendable {
        private let document = Locked("")
        func serve(_ keys: [String]) {
            let members = keys.joined(separator: ",")
            document.withLock { $0 = #"{"keys":[\#(members)]}"# }
        }
        var transport: ScriptedTransport {
            ScriptedTransport { _ in
                TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(self.document.withLock { $0 }.utf8))
            }
        }
    }

    /// The text of `Keys/<name>.pub.jwk`.
    static func publicKey(_ name: String) throws -> String {
        try String(contentsOf: Fixtures.keysDirectory.appendingPathComponent(name + ".pub.jwk"), encoding: .utf8)
    }

    static func bearer(_ validator: AccessTokenValidator, _ token: String, scopes: Set<String> = []) async -> String? {
        do {
            _ = try await validator.validate(method: "GET", url: url, headers: ["Authorization": "Bearer " + token], requiredScopes: scopes)
            return nil
        } catch let error as OIDCError {
            return error.code.rawValue
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("a key removed from the issuer's set refuses a cached token once the new set is known")
    func keyLeavesSet() async throws {
        let server = KeySetServer()
        server.serve([try Self.publicKey("p256"), try Self.publicKey("rsa2048")])
        let keys = try JWKSetCache(jwksURI: URL(string: "https://as.example/jwks")!, transport: server.transport)
        _ = try await keys.keys()  // a verification that races a set fetch is not kept: start warm
        let store = VerifiedTokenStore(capacity: 100, maximumAge: 3600)
        let validator = AccessTokenValidator(
            issuer: Fixtures.issuer, audience: Fixtures.audience, keys: .cache(keys), clock: Fixtures.clock, tokenCache: store)
        let token = try Fixtures.sign(Fixtures.accessTokenClaims())
        let other = try Fixtures.sign(Fixtures.accessTokenClaims(["sub": "bob"]), key: "rsa2048", algorithm: .rs256)
        #expect(await Self.bearer(validator, token) == nil)
        #expect(await Self.bearer(validator, other) == nil)
        #expect(await Self.bearer(validator, token) == nil)
        #expect(store.count == 2 && store.hits == 1)

        // The issuer drops the P-256 key; the key cache learns it at its next fetch.
        server.serve([try Self.publicKey("rsa2048")])
        _ = try await keys.refresh()
        #expect(store.count == 1)  // the RSA-verified token stays
        #expect(await Self.bearer(validator, token) == "signing_key_not_found")
        #expect(await Self.bearer(validator, other) == nil)
        #expect(store.hits == 2)
    }

    @Test("a token past exp is refused from the cache, and one past the maximum age is verified again")
    func expiry() async throws {
        let clock = TestClock()
        let store = VerifiedTokenStore(capacity: 100, maximumAge: 3600)
        let validator = AccessTokenValidator(
            issuer: Fixtures.issuer, audience: Fixtures.audience, keys: .keySet(try Fixtures.publicKeys()), leeway: 60,
            clock: clock.clock, tokenCache: store)
        let token = try Fixtures.sign(Fixtures.accessTokenClaims())  // exp = now + 300
        #expect(await Self.bearer(validator, token) == nil)
        clock.advance(299)
        #expect(await Self.bearer(validator, token) == nil)
        #expect(store.hits == 1)
        clock.advance(62)  // past exp + leeway
        #expect(await Self.bearer(validator, token) == "expired")
        #expect(store.hits == 1 && store.count == 0)

        // The maximum age: an entry older than it is a miss (verified again, kept again).
        let young = VerifiedTokenStore(capacity: 100, maximumAge: 10)
        let clock2 = TestClock()
        let short = AccessTokenValidator(
            issuer: Fixtures.issuer, audience: Fixtures.audience, keys: .keySet(try Fixtures.publicKeys()), clock: clock2.clock, tokenCache: young)
        #expect(await Self.bearer(short, token) == nil)
        clock2.advance(11)
        #expect(await Self.bearer(short, token) == nil)
        #expect(young.hits == 0 && young.count == 1)
    }

    @Test("a token cached for one audience never hits for another, even in a shared store")
    func otherAudience() async throws {
        let store = VerifiedTokenStore(capacity: 100, maximumAge: 60)
        let keys = IssuerKeys.keySet(try Fixtures.publicKeys())
        let mine = AccessTokenValidator(issuer: Fixtures.issuer, audience: Fixtures.audience, keys: keys, clock: Fixtures.clock, tokenCache: store)
        let theirs = AccessTokenValidator(
            issuer: Fixtures.issuer, audience: "https://other.example", keys: keys, clock: Fixtures.clock, tokenCache: store)
        let token = try Fixtures.sign(Fixtures.accessTokenClaims())
        #expect(await Self.bearer(mine, token) == nil)
        #expect(await Self.bearer(mine, token) == nil)
        #expect(store.hits == 1)
        #expect(await Self.bearer(theirs, token) == "audience_mismatch")
        #expect(await Self.bearer(theirs, token) == "audience_mismatch")
        #expect(store.hits == 1 && store.count == 1)
        // Another issuer's policy, or other algorithms, are other keys too.
        let es384Only = AccessTokenValidator(
            issuer: Fixtures.issuer, audience: Fixtures.audience, keys: keys, allowedAlgorithms: [.es384], clock: Fixtures.clock, tokenCache: store)
        #expect(await Self.bearer(es384Only, token) != nil)
        #expect(store.hits == 1)
    }

    @Test("a replayed DPoP proof on a cached token is refused, and the cached bound token never passes as Bearer")
    func dpopOnCachedToken() async throws {
        let store = VerifiedTokenStore(capacity: 100, maximumAge: 60)
        let validator = AccessTokenValidator(
            issuer: Fixtures.issuer, audience: Fixtures.audience, keys: .keySet(try Fixtures.publicKeys()), clock: Fixtures.clock, tokenCache: store)
        let key = try DPoPKey.generate()
        let token = try Fixtures.sign(Fixtures.accessTokenClaims(["cnf": .object(["jkt": .string(key.thumbprint)])]))
        func present(_ proof: String) async -> String? {
            do {
                _ = try await validator.validate(method: "GET", url: Self.url, headers: ["Authorization": "DPoP " + token, "DPoP": proof])
                return nil
            } catch let error as OIDCError {
                return error.code.rawValue
            } catch {
                return "unexpected \(error)"
            }
        }
        let first = try key.proof(method: "GET", url: Self.url, accessToken: token, now: Fixtures.now)
        let second = try key.proof(method: "GET", url: Self.url, accessToken: token, now: Fixtures.now)
        #expect(await present(first) == nil)
        #expect(await present(second) == nil)
        #expect(store.hits == 1)
        #expect(await present(first) == "dpop_proof_replayed")
        #expect(store.hits == 2)  // the token came from the cache; the proof did not
        #expect(await Self.bearer(validator, token) == "dpop_bound_token_as_bearer")
        // A proof of another key, and one for another URL, on the cached token.
        let stranger = try DPoPKey.generate()
        #expect(await present(try stranger.proof(method: "GET", url: Self.url, accessToken: token, now: Fixtures.now)) != nil)
        #expect(await present(try key.proof(method: "POST", url: Self.url, accessToken: token, now: Fixtures.now)) != nil)
        #expect(store.hits == 5)
    }

    @Test("the required scopes are checked on every hit")
    func scopesOnHit() async throws {
        let store = VerifiedTokenStore(capacity: 100, maximumAge: 60)
        let validator = AccessTokenValidator(
            issuer: Fixtures.issuer, audience: Fixtures.audience, keys: .keySet(try Fixtures.publicKeys()), clock: Fixtures.clock, tokenCache: store)
        let token = try Fixtures.sign(Fixtures.accessTokenClaims())
        #expect(await Self.bearer(validator, token, scopes: ["read"]) == nil)
        #expect(await Self.bearer(validator, token, scopes: ["admin"]) == "insufficient_scope")
        #expect(store.hits == 1)
    }

    @Test("a purge by subject takes effect on the next request, through the front door")
    func purgeBySubject() async throws {
        var configuration = ResourceGuard.Configuration(issuer: Fixtures.issuer, audience: Fixtures.audience)
        configuration.keys = .keySet(try Fixtures.publicKeys())
        configuration.clock = Fixtures.clock
        configuration.transport = ScriptedTransport { _ in throw OIDCError(.transport, "no network in this test") }
        let guardian = try await ResourceGuard(configuration: configuration)
        let store = try #require(guardian.verifiedTokens)
        #expect(store.capacity == ResourceGuard.VerifiedTokenCache.defaultCapacity)
        let alice = try Fixtures.sign(Fixtures.accessTokenClaims(["sid": "s-1"]))
        let bob = try Fixtures.sign(Fixtures.accessTokenClaims(["sub": "bob", "jti": "jti-2"]))
        func allowed(_ token: String) async -> Bool {
            if case .allowed = await guardian.check(method: "GET", url: Self.url, headers: ["Authorization": "Bearer " + token]) { return true }
            return false
        }
        for token in [alice, bob, alice, bob] { #expect(await allowed(token)) }
        #expect(store.hits == 2)
        #expect(await guardian.purge(.subject("alice")) == 1)
        #expect(await allowed(alice))  // verified again: a miss
        #expect(await allowed(bob))  // still cached: a hit
        #expect(store.hits == 3 && store.count == 2)
        #expect(await guardian.purge(.session("s-1")) == 1)
        #expect(await guardian.purge(.tokenID("jti-2")) == 1)
        #expect(store.count == 0)

        // Off by name: no store at all.
        configuration.verifiedTokenCache = .off
        #expect(try await ResourceGuard(configuration: configuration).verifiedTokens == nil)
    }

    @Test("tokens over 4 KiB are verified every time, never kept")
    func largeTokens() async throws {
        let store = VerifiedTokenStore(capacity: 100, maximumAge: 60)
        let validator = AccessTokenValidator(
            issuer: Fixtures.issuer, audience: Fixtures.audience, keys: .keySet(try Fixtures.publicKeys()), clock: Fixtures.clock, tokenCache: store)
        let token = try Fixtures.sign(Fixtures.accessTokenClaims(["groups": .string(String(repeating: "g", count: 4000))]))
        #expect(token.utf8.count > VerifiedTokenStore.maximumTokenBytes)
        #expect(await Self.bearer(validator, token) == nil)
        #expect(await Self.bearer(validator, token) == nil)
        #expect(store.count == 0 && store.hits == 0)
    }

    @Test("one verification in flight per token: a second miss waits for the first and shares its success only")
    func singleFlight() async throws {
        let store = VerifiedTokenStore(capacity: 10, maximumAge: 60)
        let validator = AccessTokenValidator(
            issuer: Fixtures.issuer, audience: Fixtures.audience, keys: .keySet(try Fixtures.publicKeys()), clock: Fixtures.clock, tokenCache: nil)
        let token = try await validator.validate(bearerToken: try Fixtures.sign(Fixtures.accessTokenClaims()))
        let policy = VerifiedTokenStore.Digest(sha256: Array("policy".utf8))
        let key = VerifiedTokenStore.Key(token: "a.b.c", policy: policy)
        guard case .lead(let flight) = store.lookup(key, now: Fixtures.now, leeway: 60) else { Issue.record("the first miss leads"); return }
        guard case .wait(let joined) = store.lookup(key, now: Fixtures.now, leeway: 60) else { Issue.record("the second miss waits"); return }
        #expect(store.flightsInFlight == 1)
        async let waited = store.wait(for: joined, now: Fixtures.clock, leeway: 60)
        store.finish(flight, key: key, with: token, keySource: nil, now: Fixtures.now)
        #expect(await waited?.subject == "alice")
        #expect(store.flightsInFlight == 0 && store.count == 1)

        // A failure is not shared: the waiter hears nil and verifies on its own; nothing is kept.
        let other = VerifiedTokenStore.Key(token: "d.e.f", policy: policy)
        guard case .lead(let failing) = store.lookup(other, now: Fixtures.now, leeway: 60),
            case .wait(let waiting) = store.lookup(other, now: Fixtures.now, leeway: 60)
        else { Issue.record("lead, then wait"); return }
        store.finish(failing, key: other, with: nil, keySource: nil, now: Fixtures.now)
        #expect(await store.wait(for: waiting, now: Fixtures.clock, leeway: 60) == nil)
        #expect(store.count == 1 && store.flightsInFlight == 0)
    }

    @Test("a million distinct tokens keep the store within its capacity, least recently used evicted")
    func millionTokens() async throws {
        let validator = AccessTokenValidator(
            issuer: Fixtures.issuer, audience: Fixtures.audience, keys: .keySet(try Fixtures.publicKeys()), clock: Fixtures.clock, tokenCache: nil)
        let token = try await validator.validate(bearerToken: try Fixtures.sign(Fixtures.accessTokenClaims()))
        // The shards alone: a thread's front would keep serving the token however the shard ordered it.
        let store = VerifiedTokenStore(capacity: 5000, maximumAge: 60, threadFronts: false)
        let policy = VerifiedTokenStore.Digest(sha256: Array("policy".utf8))
        let kept = VerifiedTokenStore.Key(token: "kept", policy: policy)
        var most = 0
        for i in 0..<1_000_000 {
            // Distinct digests without hashing a million texts (the store never sees a token's text).
            let spread = UInt64(i) &* 0x9E37_79B9_7F4A_7C15
            let key = i % 1000 == 0 ? kept : VerifiedTokenStore.Key(policy: policy, token: .init(words: (spread, spread >> 7, UInt64(i), 1)))
            switch store.lookup(key, now: Fixtures.now, leeway: 60) {
            case .lead(let flight): store.finish(flight, key: key, with: token, keySource: nil, now: Fixtures.now)
            case .hit: break
            case .wait: Issue.record("no verification is in flight")
            }
            if i % 50_000 == 0 { most = max(most, store.count) }
        }
        most = max(most, store.count)
        #expect(most <= 5000 && store.count >= 4000)
        #expect(store.flightsInFlight == 0)
        // The token used every 1 000 requests stayed (least recently used eviction, not oldest first).
        #expect(store.hits == 999)
    }
}
