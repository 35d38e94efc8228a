import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("JWK Set cache: rotation, cool-down, Cache-Control, failures")
struct JWKSetCacheTests {
    let url = IDTokenFixtures.jwksURL.absoluteString
    let clock = TestClock()

    func cache(_ transport: ScriptedTransport, ttl: TimeInterval = 300) throws -> JWKSetCache {
        try JWKSetCache(
            jwksURI: IDTokenFixtures.jwksURL, transport: transport,
            configuration: .init(defaultTimeToLive: ttl, refreshCoolDown: 30, clock: clock.now))
    }

    func token(kid: String?) throws -> CompactJWS {
        try CompactJWS(F.sign(F.claims(), key: F.privateKey("rsa2048", kid: kid), .rs256))
    }

    func reply(_ members: [String], headers: HeaderFields = [:]) -> ScriptedTransport.Reply {
        .response(TransportResponse(status: 200, headers: headers, body: Array(F.jwks(members).utf8)))
    }

    @Test("an unparseable key beside good ones: the good ones are still used")
    func unparseableKey() async throws {
        let transport = ScriptedTransport()
        let bad = #"{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA","kid":"broken"}"#
        let unknown = #"{"kty":"XYZ","kid":"future"}"#
        try transport.script(url, [reply([bad, unknown, F.publicJWK("rsa2048", kid: "k1"), #"42"#])])
        let cache = try cache(transport)
        let key = try await cache.verify(token(kid: "k1"))
        #expect(key.keyID == "k1")
        #expect(await cache.skippedKeyCount == 3)
        #expect(transport.calls(url) == 1)
    }

    @Test("use: enc keys are not used for verification")
    func encKeysSkipped() async throws {
        let transport = ScriptedTransport()
        try transport.script(url, [reply([F.publicJWK("rsa2048", kid: "k1", use: "enc")])])
        let cache = try cache(transport)
        await expectOIDCError(.signingKeyNotFound) { try await cache.verify(token(kid: "k1")) }
        #expect(await cache.skippedKeyCount == 1)
        // A kid-less token cannot pick the enc key either.
        await expectOIDCError(.signingKeyNotFound) { try await cache.verify(token(kid: nil)) }
    }

    @Test("a kid-less token verifies only when exactly one key fits its algorithm")
    func kidless() async throws {
        let transport = ScriptedTransport()
        try transport.script(url, [reply([F.publicJWK("rsa2048", kid: "k1"), F.publicJWK("p256", kid: "e1")])])
        let one = try cache(transport)
        _ = try await one.verify(token(kid: nil))
        let transport2 = ScriptedTransport()
        try transport2.script(url, [reply([F.publicJWK("rsa2048", kid: "k1"), F.publicJWK("rsa2048", kid: "k2")])])
        await expectOIDCError(.ambiguousSigningKey) { try await cache(transport2).verify(token(kid: nil)) }
    }

    @Test("key rotation: a token with a new kid verifies after exactly one re-fetch")
    func rotation() async throws {
        let transport = ScriptedTransport()
        try transport.script(
            url, [reply([F.publicJWK("rsa2048", kid: "old")]), reply([F.publicJWK("rsa2048", kid: "old"), F.publicJWK("rsa2048", kid: "new")])])
        let cache = try cache(transport)
        _ = try await cache.verify(token(kid: "old"))
        #expect(transport.calls(url) == 1)
        let key = try await cache.verify(token(kid: "new"))
        #expect(key.keyID == "new")
        #expect(transport.calls(url) == 2)
        _ = try await cache.verify(token(kid: "new"))
        _ = try await cache.verify(token(kid: "old"))
        #expect(transport.calls(url) == 2)
    }

    @Test("100 concurrent verifications with an unknown kid cause exactly one fetch")
    func burst() async throws {
        let transport = ScriptedTransport(delay: .milliseconds(50))
        try transport.script(url, [reply([F.publicJWK("rsa2048", kid: "old")]), reply([F.publicJWK("rsa2048", kid: "new")])])
        let cache = try cache(transport)
        _ = try await cache.keys()
        #expect(transport.calls(url) == 1)
        let jws = try token(kid: "new")
        let verified = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<100 { group.addTask { try await cache.verify(jws).keyID } }
            var ids: [String?] = []
            for try await id in group { ids.append(id) }
            return ids
        }
        #expect(verified.count == 100)
        #expect(verified.allSatisfy { $0 == "new" })
        #expect(transport.calls(url) == 2)
    }

    @Test("100 concurrent first uses share one fetch")
    func burstCold() async throws {
        let transport = ScriptedTransport(delay: .milliseconds(50))
        try transport.script(url, [reply([F.publicJWK("rsa2048", kid: "k1")])])
        let cache = try cache(transport)
        let jws = try token(kid: "k1")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 { group.addTask { try await cache.verify(jws) } }
            try await group.waitForAll()
        }
        #expect(transport.calls(url) == 1)
    }

    @Test("an unknown kid inside the cool-down causes no further fetch; after it, one more")
    func coolDown() async throws {
        let transport = ScriptedTransport()
        try transport.script(url, [reply([F.publicJWK("rsa2048", kid: "k1")])])
        let cache = try cache(transport)
        _ = try await cache.keys()
        #expect(transport.calls(url) == 1)
        await expectOIDCError(.signingKeyNotFound) { try await cache.verify(token(kid: "ghost")) }
        #expect(transport.calls(url) == 2)
        for _ in 0..<5 {
            await expectOIDCError(.signingKeyNotFound) { try await cache.verify(token(kid: "ghost")) }
        }
        clock.advance(by: 29)
        await expectOIDCError(.signingKeyNotFound) { try await cache.verify(token(kid: "other-ghost")) }
        #expect(transport.calls(url) == 2)
        clock.advance(by: 2)
        await expectOIDCError(.signingKeyNotFound) { try await cache.verify(token(kid: "ghost")) }
        #expect(transport.calls(url) == 3)
        await expectOIDCError(.signingKeyNotFound) { try await cache.verify(token(kid: "ghost")) }
        #expect(transport.calls(url) == 3)
        // Known kids keep working without fetches.
        _ = try await cache.verify(token(kid: "k1"))
        #expect(transport.calls(url) == 3)
    }

    @Test("the set is kept for the default lifetime, then fetched again")
    func defaultTTL() async throws {
        let transport = ScriptedTransport()
        try transport.script(url, [reply([F.publicJWK("rsa2048", kid: "k1")])])
        let cache = try cache(transport)
        _ = try await cache.verify(token(kid: "k1"))
        clock.advance(by: 299)
        _ = try await cache.verify(token(kid: "k1"))
        #expect(transport.calls(url) == 1)
        clock.advance(by: 2)
        _ = try await cache.verify(token(kid: "k1"))
        #expect(transport.calls(url) == 2)
    }

    @Test("Cache-Control: max-age sets the lifetime")
    func cacheControl() async throws {
        let transport = ScriptedTransport()
        try transport.script(url, [reply([F.publicJWK("rsa2048", kid: "k1")], headers: ["Cache-Control": "public, max-age=60, must-revalidate"])])
        let cache = try cache(transport)
        _ = try await cache.verify(token(kid: "k1"))
        clock.advance(by: 59)
        _ = try await cache.verify(token(kid: "k1"))
        #expect(transport.calls(url) == 1)
        clock.advance(by: 2)
        _ = try await cache.verify(token(kid: "k1"))
        #expect(transport.calls(url) == 2)
    }

    @Test("max-age is clamped to the configured bounds")
    func cacheControlClamped() {
        let config = JWKSetCache.Configuration()
        #expect(JWKSetCache.lifetime(of: ["Cache-Control": "max-age=0"], configuration: config) == 30)
        #expect(JWKSetCache.lifetime(of: ["Cache-Control": "max-age=999999999"], configuration: config) == 86_400)
        #expect(JWKSetCache.lifetime(of: ["cache-control": "no-cache"], configuration: config) == 300)
        #expect(JWKSetCache.lifetime(of: [:], configuration: config) == 300)
        #expect(JWKSetCache.lifetime(of: ["Cache-Control": "max-age=\"120\""], configuration: config) == 120)
    }

    @Test("a failed re-fetch is a typed error and keeps the old keys")
    func fetchFailureKeepsOldKeys() async throws {
        let transport = ScriptedTransport()
        try transport.script(url, [reply([F.publicJWK("rsa2048", kid: "k1")])])
        let cache = try cache(transport)
        _ = try await cache.verify(token(kid: "k1"))
        transport.then(url, .failure(.timedOut))
        await expectOIDCError(.jwksTransportFailed) { try await cache.verify(token(kid: "new")) }
        _ = try await cache.verify(token(kid: "k1"))
        clock.advance(by: 31)
        transport.then(url, .response(TransportResponse(status: 503)))
        await expectOIDCError(.jwksHTTPStatus) { try await cache.verify(token(kid: "new")) }
        clock.advance(by: 31)
        transport.then(url, .response(TransportResponse(status: 200, body: Array("<html>".utf8))))
        await expectOIDCError(.jwksInvalidDocument) { try await cache.verify(token(kid: "new")) }
        _ = try await cache.verify(token(kid: "k1"))
        // Once expired, a failed fetch is reported rather than serving stale keys.
        clock.advance(by: 300)
        await expectOIDCError(.jwksInvalidDocument) { try await cache.verify(token(kid: "k1")) }
        // And it recovers when the provider does.
        try transport.then(url, reply([F.publicJWK("rsa2048", kid: "k1")]))
        _ = try await cache.verify(token(kid: "k1"))
    }

    @Test("the HTTP status of a failed fetch is kept")
    func httpStatusKept() async throws {
        let transport = ScriptedTransport()
        transport.then(url, .response(TransportResponse(status: 404)))
        do {
            _ = try await cache(transport).keys()
            Issue.record("expected a failure")
        } catch let error as OIDCError {
            #expect(error.code == .jwksHTTPStatus)
            #expect(error.httpStatus == 404)
        }
    }

    @Test("jwks_uri must be https unless loopback")
    func insecureJWKSURI() async throws {
        #expect(throws: OIDCError.self) { try JWKSetCache(jwksURI: URL(string: "http://op.example.com/jwks")!, transport: ScriptedTransport()) }
        _ = try JWKSetCache(jwksURI: URL(string: "http://127.0.0.1:8080/jwks")!, transport: ScriptedTransport())
    }

    @Test("the validator follows rotation through the cache")
    func validatorWithCache() async throws {
        let transport = ScriptedTransport()
        try transport.script(url, [reply([F.publicJWK("rsa2048", kid: "old")]), reply([F.publicJWK("rsa2048", kid: "new")])])
        let validator = IDTokenValidator(configuration: F.config(clock: clock), keys: .cache(try cache(transport)))
        _ = try await validator.validate(
            F.sign(F.claims(), key: F.privateKey("rsa2048", kid: "old"), .rs256), expecting: IDTokenExpectations(nonce: .noNonceSent))
        let idToken = try await validator.validate(
            F.sign(F.claims(), key: F.privateKey("rsa2048", kid: "new"), .rs256), expecting: IDTokenExpectations(nonce: .noNonceSent))
        #expect(idToken.header.keyID == "new")
        #expect(transport.calls(url) == 2)
    }

    @Test("an unknown kid right after an expiry fetch causes no second fetch")
    func unknownKidAfterExpiryFetch() async throws {
        let transport = ScriptedTransport()
        try transport.script(url, [reply([F.publicJWK("rsa2048", kid: "k1")])])
        let cache = try cache(transport)
        await expectOIDCError(.signingKeyNotFound) { try await cache.verify(token(kid: "ghost")) }
        #expect(transport.calls(url) == 1)
        clock.advance(by: 301)
        await expectOIDCError(.signingKeyNotFound) { try await cache.verify(token(kid: "ghost")) }
        #expect(transport.calls(url) == 2)
    }
}
