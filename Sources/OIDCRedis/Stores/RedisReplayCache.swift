import JOSE
import OIDC
import OIDCResourceServer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ``/OIDCCore/ReplayCache`` in Redis or Valkey, shared by every replica: a DPoP proof or a logout token
/// used at one replica is refused as a replay at every other.
///
/// - One sorted set per scope (`NAMESPACE:SHA256(scope)`, hex): members are the identifiers' SHA-256 (hex;
///   a `jti` chosen by whoever made the token never reaches a key), scores their expiry in milliseconds.
/// - A first use is one script: it trims the scope's expired entries, answers "replayed" for a live one,
///   "full" when the scope already holds `scopeCapacity` live entries, else records the identifier. Of any
///   number of concurrent first uses of one identifier, on any replicas, exactly one is told "first use"; the
///   per-scope bound is exact (the count and the insert are one atomic step).
/// - Expiry and "now" are the validator's (``recordFirstUse(of:scope:until:now:)``), as the
///   ``/OIDCCore/ReplayCache`` contract says; the server expires each scope's set (`PEXPIREAT`) a minute after
///   its latest entry, so idle scopes leave nothing behind.
/// - Failures are `redis_unavailable` / `redis_timeout` / `redis_error` (the validator then refuses the token:
///   an unanswered replay check never passes).
public struct RedisReplayCache: ReplayCache, CustomStringConvertible {
    /// The pool the cache uses.
    package let database: RedisDatabase
    /// The key prefix (default `oidc:replay`).
    public let namespace: String
    /// The most live entries one scope may hold (default 10 000; at least 1).
    package let scopeCapacity: Int

    /// A cache under `namespace`; at most `scopeCapacity` (at least 1) live entries per scope.
    /// - Throws: `invalid_redis_namespace`.
    public init(database: RedisDatabase, namespace: String = "oidc:replay", scopeCapacity: Int = 10_000) throws {
        self.database = database
        self.namespace = try RedisNamespace.check(namespace)
        self.scopeCapacity = max(1, scopeCapacity)
    }

    /// `RedisReplayCache(namespace: NAME)`.
    public var description: String { "RedisReplayCache(namespace: \(namespace))" }

    /// Records `identifier` within `scope` until `expiry`, atomically across replicas.
    /// - Returns: `.firstUse`, `.replayed` (a live entry is recorded) or `.full` (the scope's share is full).
    /// - Throws: `redis_unavailable`, `redis_timeout`, `redis_error`, `invalid_redis_value`.
    public func recordFirstUse(of identifier: String, scope: String, until expiry: Date, now: Date) async throws -> ReplayCacheOutcome {
        let member = RedisNamespace.hex(DigestAlgorithm.sha256.hash(Array(identifier.utf8)))
        let key = "\(namespace):\(RedisNamespace.hex(DigestAlgorithm.sha256.hash(Array(scope.utf8))))"
        let reply = try await database.eval(
            Self.record, keys: [key],
            arguments: [
                Array(member.utf8), Array(Self.milliseconds(expiry, late: "inf").utf8), Array(Self.milliseconds(now, late: "9000000000000").utf8),
                Array(String(scopeCapacity).utf8),
            ])
        switch try reply.integer("replay check") {
        case 1: return .firstUse
        case 2: return .replayed
        case 3: return .full
        default: throw OIDCError(.invalidRedisValue, "the replay check's reply is not one this module sends")
        }
    }

    /// Forgets `identifier` within `scope` on every replica (``/OIDCCore/ReleasableReplayCache``).
    /// - Throws: `redis_unavailable`, `redis_timeout`, `redis_error`.
    package func release(_ identifier: String, scope: String) async throws {
        let member = RedisNamespace.hex(DigestAlgorithm.sha256.hash(Array(identifier.utf8)))
        let key = "\(namespace):\(RedisNamespace.hex(DigestAlgorithm.sha256.hash(Array(scope.utf8))))"
        _ = try await database.eval("return redis.call('ZREM', KEYS[1], ARGV[1])", keys: [key], arguments: [Array(member.utf8)])
    }

    /// The latest milliseconds sent as themselves (year 2255); later ones, and NaN, are `late`.
    static let latestMilliseconds: Double = 9_000_000_000_000

    /// `date` as a score: whole milliseconds, `late` past the range or NaN (remembered for good: a cache
    /// refuses rather than forgets), `-inf` before 1970 minus the range.
    static func milliseconds(_ date: Date, late: String) -> String {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.up)
        if value.isNaN || value > latestMilliseconds { return late }
        if value < -latestMilliseconds { return "-inf" }
        return value.wholeInt.map { String($0) } ?? late
    }

    /// KEYS scope set; ARGV member, expiry ms, now ms, capacity → 1 first use, 2 replayed, 3 full.
    static let record = """
        redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
        if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 2 end
        if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 3 end
        redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
        local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
        if last[2] == 'inf' then
            redis.call('PERSIST', KEYS[1])
        else
            redis.call('PEXPIREAT', KEYS[1], math.max(math.ceil(tonumber(last[2])), 0) + 60000)
        end
        return 1
        """
}

extension RedisReplayCache: ReleasableReplayCache {}
