import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// A thread's front of the verified-token store: its own copies of the tokens it served, dropped by every purge and
/// key-set change of their store, never served for another store, under the same time rule as the store's entries.
/// Each test runs its lookups synchronously, so one thread makes them all and its front is the one checked.
@Suite("Verified-token cache: a thread's front")
struct VerifiedTokenFrontTests {
    static let policy = VerifiedTokenStore.Digest(sha256: Array("policy".utf8))

    static func token(_ subject: String) async throws -> AccessToken {
        let validator = AccessTokenValidator(
            issuer: Fixtures.issuer, audience: Fixtures.audience, keys: .keySet(try Fixtures.publicKeys()), clock: Fixtures.clock, tokenCache: nil)
        return try await validator.validate(bearerToken: try Fixtures.sign(Fixtures.accessTokenClaims(["sub": .string(subject)])))
    }

    /// Inserts `token` under `key` (a miss led and finished), then hits it once so that this thread's front keeps it.
    static func keep(_ token: AccessToken, _ key: VerifiedTokenStore.Key, in store: VerifiedTokenStore, source: ObjectIdentifier? = nil) -> Bool {
        guard case .lead(let flight) = store.lookup(key, now: Fixtures.now, leeway: 60) else { return false }
        store.finish(flight, key: key, with: token, keySource: source, now: Fixtures.now)
        guard case .hit = store.lookup(key, now: Fixtures.now, leeway: 60) else { return false }
        return true
    }

    static func isHit(_ lookup: VerifiedTokenStore.Lookup) -> Bool {
        if case .hit = lookup { return true }
        return false
    }

    /// A key whose entry the shard evicted (capacity 1) but this thread's front still holds. Synchronous: no suspension
    /// point moves the caller to another thread between the lookups and the ones it makes next.
    static func evictedButInFront(
        _ store: VerifiedTokenStore, alice: AccessToken, bob: AccessToken, source: ObjectIdentifier? = nil
    ) -> VerifiedTokenStore.Key {
        let aliceKey = VerifiedTokenStore.Key(token: "alice.token.sig", policy: policy)
        let bobKey = VerifiedTokenStore.Key(token: "bob.token.sig", policy: policy)
        #expect(keep(alice, aliceKey, in: store, source: source))
        guard case .lead(let flight) = store.lookup(bobKey, now: Fixtures.now, leeway: 60) else {
            Issue.record("bob's token is a miss")
            return aliceKey
        }
        store.finish(flight, key: bobKey, with: bob, keySource: source, now: Fixtures.now)
        #expect(store.count == 1)  // alice's entry left the shard
        return aliceKey
    }

    @Test("a hit is kept in the thread's front as a copy of its own, and counted")
    func frontServesOwnCopy() async throws {
        let (alice0, bob0) = (try await Self.token("alice"), try await Self.token("bob"))
        let store = VerifiedTokenStore(capacity: 1, maximumAge: 600)
        let alice = Self.evictedButInFront(store, alice: alice0, bob: bob0)
        guard case .hit(let served) = store.lookup(alice, now: Fixtures.now, leeway: 60) else {
            Issue.record("the front serves the token the shard evicted")
            return
        }
        #expect(served.subject == "alice" && served.hasScopes([]))
        #expect(store.hits == 2)
        // The same claims, in a buffer no other copy holds.
        let original = alice0
        #expect(served.claims.payload == original.claims.payload)
        let buffers = (served.claims.payload.withUnsafeBufferPointer { $0.baseAddress }, original.claims.payload.withUnsafeBufferPointer { $0.baseAddress })
        #expect(buffers.0 != buffers.1)
    }

    @Test("a purge drops every front, even for a token no shard holds any more")
    func purgeReachesFronts() async throws {
        let (alice0, bob0) = (try await Self.token("alice"), try await Self.token("bob"))
        let store = VerifiedTokenStore(capacity: 1, maximumAge: 600)
        let alice = Self.evictedButInFront(store, alice: alice0, bob: bob0)
        #expect(store.purge { $0.subject == "alice" } == 0)
        guard case .lead(let flight) = store.lookup(alice, now: Fixtures.now, leeway: 60) else {
            Issue.record("a purged token is verified again")
            return
        }
        store.finish(flight, key: alice, with: nil, keySource: nil, now: Fixtures.now)
    }

    @Test("a new key set drops every front")
    func keySetReachesFronts() async throws {
        let (alice0, bob0) = (try await Self.token("alice"), try await Self.token("bob"))
        let store = VerifiedTokenStore(capacity: 1, maximumAge: 600)
        let source = ObjectIdentifier(store)
        let alice = Self.evictedButInFront(store, alice: alice0, bob: bob0, source: source)
        store.keySetFetched(JWKSet(keys: []), source: source)
        #expect(!Self.isHit(store.lookup(alice, now: Fixtures.now, leeway: 60)))
    }

    @Test("a front never serves one store's token for another store")
    func frontsArePerStore() async throws {
        let first = VerifiedTokenStore(capacity: 10, maximumAge: 600)
        let key = VerifiedTokenStore.Key(token: "alice.token.sig", policy: Self.policy)
        let alice = try await Self.token("alice")
        #expect(Self.keep(alice, key, in: first))
        let second = VerifiedTokenStore(capacity: 10, maximumAge: 600)
        #expect(!Self.isHit(second.lookup(key, now: Fixtures.now, leeway: 60)))
        #expect(second.hits == 0)
    }

    @Test("a front's token past exp, or past the maximum age, is not served")
    func frontTimeRule() async throws {
        let (alice0, bob0) = (try await Self.token("alice"), try await Self.token("bob"))
        let store = VerifiedTokenStore(capacity: 1, maximumAge: 100)
        let alice = Self.evictedButInFront(store, alice: alice0, bob: bob0)
        #expect(Self.isHit(store.lookup(alice, now: Fixtures.now.addingTimeInterval(99), leeway: 60)))
        #expect(!Self.isHit(store.lookup(alice, now: Fixtures.now.addingTimeInterval(100), leeway: 60)))
        let long = VerifiedTokenStore(capacity: 1, maximumAge: 3600)
        let bob = Self.evictedButInFront(long, alice: alice0, bob: bob0)
        #expect(!Self.isHit(long.lookup(bob, now: Fixtures.now.addingTimeInterval(300 + 60), leeway: 60)))  // exp + leeway
    }
}
