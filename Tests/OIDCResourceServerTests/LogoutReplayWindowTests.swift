import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// A logout token's `jti` is remembered for as long as the token can still be accepted, on the
/// validator's clock (it was remembered 600 s from its first use, on the cache's own clock).
@Suite("Logout tokens: the replay window covers the acceptance window")
struct LogoutReplayWindowTests {
    static let t0: Int64 = 1_800_000_000

    final class Clock: Sendable {
        let now = Locked(Fixtures.now)
        func set(_ seconds: Int64) { now.withLock { $0 = Date(timeIntervalSince1970: TimeInterval(seconds)) } }
        var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
    }

    static func token(jti: String, iat: Int64, exp: Int64?) throws -> String {
        var claims: JSONObject = [
            "iss": .string(Fixtures.issuer), "aud": .string(Fixtures.clientID), "iat": .integer(iat),
            "jti": .string(jti), "sub": "alice", "events": .object([LogoutToken.backChannelLogoutEvent: .object([:])]),
        ]
        if let exp { claims["exp"] = .integer(exp) }
        return try Fixtures.sign(claims, typ: "logout+jwt")
    }

    static func validator(
        _ clock: Clock, replays: any ReplayCache = InMemoryReplayCache(),
        expirationRule: LogoutTokenValidator.ExpirationRule = .required
    ) throws -> LogoutTokenValidator {
        LogoutTokenValidator(
            issuer: Fixtures.issuer, clientID: Fixtures.clientID, keys: .keySet(try Fixtures.publicKeys()),
            replays: replays, maximumAge: 600, leeway: 60, expirationRule: expirationRule, clock: clock.read)
    }

    @Test(
        "iat = now: refused as a replay at +300 s and at +630 s (was accepted again), too old from +660 s",
        arguments: [Optional<Int64>.some(3600), nil])
    func issuedNow(expiresIn: Int64?) async throws {
        let clock = Clock()
        let validator = try Self.validator(clock, expirationRule: expiresIn == nil ? .optionalForDraftProviders : .required)
        let token = try Self.token(jti: "now", iat: Self.t0, exp: expiresIn.map { Self.t0 + $0 })
        _ = try await validator.validate(token)
        for offset: Int64 in [300, 630, 659] {
            clock.set(Self.t0 + offset)
            await expectCode(.replayedLogoutToken) { _ = try await validator.validate(token) }
        }
        clock.set(Self.t0 + 660)
        await expectCode(.invalidLogoutToken) { _ = try await validator.validate(token) }
    }

    @Test("iat 60 s ahead: refused as a replay at +660 s and +719 s (was accepted again at +660 s)")
    func issuedAhead() async throws {
        let clock = Clock()
        let validator = try Self.validator(clock)
        let token = try Self.token(jti: "ahead", iat: Self.t0 + 60, exp: Self.t0 + 3600)
        _ = try await validator.validate(token)
        for offset: Int64 in [300, 660, 719] {
            clock.set(Self.t0 + offset)
            await expectCode(.replayedLogoutToken) { _ = try await validator.validate(token) }
        }
        clock.set(Self.t0 + 720)
        await expectCode(.invalidLogoutToken) { _ = try await validator.validate(token) }
    }

    /// Records what the validator asks of its cache.
    actor RecordingCache: ReplayCache {
        var calls: [(identifier: String, scope: String, expiry: Date, now: Date)] = []
        func recordFirstUse(of identifier: String, scope: String, until expiry: Date, now: Date) -> ReplayCacheOutcome {
            calls.append((identifier, scope, expiry, now))
            return .firstUse
        }
    }

    @Test("the expiry is the later of iat + maximum age + leeway and exp + leeway, and now is the validator's clock")
    func expiryFromTheRule() async throws {
        let clock = Clock()
        let cache = RecordingCache()
        let validator = try Self.validator(clock, replays: cache)
        clock.set(Self.t0 + 5)
        _ = try await validator.validate(try Self.token(jti: "short", iat: Self.t0, exp: Self.t0 + 120))
        _ = try await validator.validate(try Self.token(jti: "long", iat: Self.t0, exp: Self.t0 + 3600))
        let calls = await cache.calls
        try #require(calls.count == 2)
        #expect(calls.allSatisfy { $0.now == Date(timeIntervalSince1970: TimeInterval(Self.t0 + 5)) && $0.scope == Fixtures.issuer })
        #expect(calls[0].identifier == "short" && calls[0].expiry == Date(timeIntervalSince1970: TimeInterval(Self.t0 + 660)))
        #expect(calls[1].identifier == "long" && calls[1].expiry == Date(timeIntervalSince1970: TimeInterval(Self.t0 + 3660)))
    }

    @Test("the default cache runs on the validator's clock: a replay 630 s later (validator time) is refused")
    func defaultCache() async throws {
        let clock = Clock()
        let validator = LogoutTokenValidator(
            issuer: Fixtures.issuer, clientID: Fixtures.clientID, keys: .keySet(try Fixtures.publicKeys()),
            clock: clock.read)
        #expect(validator.maximumAge == 600)
        let token = try Self.token(jti: "default", iat: Self.t0, exp: Self.t0 + 3600)
        _ = try await validator.validate(token)
        clock.set(Self.t0 + 630)
        await expectCode(.replayedLogoutToken) { _ = try await validator.validate(token) }
    }

    /// A cache that cannot answer.
    struct FailingCache: ReplayCache {
        func recordFirstUse(of identifier: String, scope: String, until expiry: Date, now: Date) async throws -> ReplayCacheOutcome {
            throw OIDCError(.databaseUnavailableForTest, "no database")
        }
    }

    @Test("an unanswered replay check never passes: the cache's error is thrown")
    func failingCache() async throws {
        let validator = try Self.validator(Clock(), replays: FailingCache())
        await expectCode(.databaseUnavailableForTest) { _ = try await validator.validate(try Self.token(jti: "x", iat: Self.t0, exp: Self.t0 + 60)) }
    }
}

extension OIDCError.Code {
    static let databaseUnavailableForTest = OIDCError.Code(rawValue: "test_cache_unavailable")
}
