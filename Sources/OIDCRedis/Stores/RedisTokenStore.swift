import JOSE
import OIDC
import OIDCSession

/// One user's tokens in a Redis or Valkey hash shared by every replica, with the cross-replica single-flight
/// refresh of ``/OIDCSession/CoordinatedTokenStore`` (the same lease protocol as `OIDCPostgres`'s store).
///
/// - Key `NAMESPACE:USERKEY` (default namespace `oidc:tokens`), a hash: `g` (the generation, incremented on
///   every write and every lease taken: the fencing token), `k` (the ``/OIDCSession/TokenEncryptionKey`` id,
///   absent in plain text), `p` (the ``/OIDC/TokenResponse`` stored JSON, sealed with AES-256-GCM when
///   ``/OIDCSession/TokenEncryption`` is given, exactly as PostgreSQL's rows: a dump or a replica of the
///   server is then not a login), `o` and `u` (who is refreshing, until when, in the server's milliseconds).
/// - Every change is one Lua script (atomic on the server) that also `PUBLISH`es the key on the change
///   channel, so waiters on other replicas wake at once. No script runs across the provider call.
/// - ``coordinatedRefresh(replacing:_:)``: see there.
/// - A value that is not in the form written here fails with a typed error, never a crash.
public struct RedisTokenStore: CoordinatedTokenStore, CustomStringConvertible {
    /// The pool the store uses.
    package let database: RedisDatabase
    /// The key of this user's tokens (without the namespace).
    public let key: String
    /// The key prefix (default `oidc:tokens`).
    public let namespace: String
    package let sealing: RowSealing
    /// How long a refresh lease lasts without renewal, in seconds.
    package let leaseSeconds: Double
    /// The longest a caller waits for another replica's refresh, in seconds.
    package let waitSeconds: Double
    /// A waiter's slow fallback re-read when no message came, in seconds (tests lengthen it).
    package var recheckSeconds: Double = 5

    /// The store of `key`'s tokens.
    /// - Parameters:
    ///   - database: the connection pool.
    ///   - key: this user's key (1 to 512 bytes, no NUL).
    ///   - namespace: the key prefix (default `oidc:tokens`).
    ///   - encryption: seal the tokens at rest (recommended); `nil` stores them as plain JSON.
    ///   - lease: how long a refresh lease lasts without renewal, in seconds (default 30, 1–3600); renewed
    ///     every `lease / 6` s on the pool's lease connection while the provider call runs.
    ///   - waitTimeout: the longest a caller waits for another replica's refresh, in seconds (default 120).
    /// - Throws: `invalid_redis_value` for an empty key, longer than 512 bytes, or containing NUL;
    ///   `invalid_redis_namespace`; `invalid_redis_url` for a lease or wait out of range.
    public init(
        database: RedisDatabase, key: String, namespace: String = "oidc:tokens", encryption: TokenEncryption? = nil,
        lease: Double = 30, waitTimeout: Double = 120
    ) throws {
        guard (1...512).contains(key.utf8.count), !key.utf8.contains(0) else {
            throw OIDCError(.invalidRedisValue, "a token key is 1-512 bytes without NUL")
        }
        guard lease.isFinite, lease >= 1, lease <= 3600 else { throw OIDCError(.invalidRedisURL, "lease must be between 1 and 3600 seconds") }
        guard waitTimeout.isFinite, waitTimeout >= 0.001, waitTimeout <= 86_400 else {
            throw OIDCError(.invalidRedisURL, "waitTimeout must be between 0.001 and 86400 seconds")
        }
        self.database = database
        self.key = key
        self.namespace = try RedisNamespace.check(namespace)
        sealing = RowSealing(encryption: encryption, purpose: "oidc-token-store")
        leaseSeconds = lease
        waitSeconds = waitTimeout
    }

    /// `RedisTokenStore(namespace: NAME)`: no key, no tokens.
    public var description: String { "RedisTokenStore(namespace: \(namespace))" }

    /// The hash holding the tokens.
    var redisKey: String { "\(namespace):\(key)" }
    /// What a change of these tokens is announced as.
    var changeMessage: String { database.changeMessage(redisKey) }

    /// Saves the tokens (insert or replace), incrementing the generation. A refresh lease ends with it:
    /// its holder's result is then not stored over these tokens.
    public func save(_ tokens: TokenResponse) async throws {
        let (keyID, payload) = try sealing.seal(Self.encode(tokens), rowKey: Array(key.utf8))
        _ = try await database.eval(
            TokenScripts.save, keys: [redisKey],
            arguments: [payload, Array((keyID ?? "").utf8), Array(RedisChangeFeed.channel.utf8), Array(changeMessage.utf8)])
    }

    /// The stored tokens, or `nil`.
    public func load() async throws -> TokenResponse? {
        try await readRow(onLeaseConnection: false)?.tokens
    }

    /// Deletes the tokens (waiters on other replicas are woken and see the user logged out).
    public func clear() async throws {
        _ = try await database.eval(
            TokenScripts.clear, keys: [redisKey], arguments: [Array(RedisChangeFeed.channel.utf8), Array(changeMessage.utf8)])
    }

    static func encode(_ tokens: TokenResponse) -> [UInt8] {
        Array(tokens.jsonObject.jsonString(sortedKeys: true).utf8)
    }

    func decode(payload: [UInt8], keyID: String?) throws -> TokenResponse {
        let plaintext = try sealing.open(payload, keyID: keyID, rowKey: Array(key.utf8))
        do {
            return try TokenResponse(storedJSON: try JSONParser.parseObject(plaintext, what: "the stored tokens"))
        } catch let error as JOSEError {
            throw OIDCError(.invalidRedisValue, "the stored tokens are not valid JSON", joseError: error)
        } catch let error as OIDCError {
            throw OIDCError(.invalidRedisValue, "the stored tokens are not a token set: \(error.reason)")
        }
    }
}

/// The token store's Lua scripts. Times are the server's (`TIME`, milliseconds): one clock for every replica.
enum TokenScripts {
    /// The server's time in milliseconds, as a Lua expression prelude.
    static let now = "local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"

    /// KEYS[1]; ARGV payload, key id ('' = none), channel, message.
    static let save = """
        redis.call('HINCRBY', KEYS[1], 'g', 1)
        redis.call('HSET', KEYS[1], 'p', ARGV[1])
        if ARGV[2] == '' then redis.call('HDEL', KEYS[1], 'k') else redis.call('HSET', KEYS[1], 'k', ARGV[2]) end
        redis.call('HDEL', KEYS[1], 'o', 'u')
        redis.call('PUBLISH', ARGV[3], ARGV[4])
        return 1
        """

    /// KEYS[1]; ARGV channel, message.
    static let clear = """
        if redis.call('DEL', KEYS[1]) == 1 then redis.call('PUBLISH', ARGV[1], ARGV[2]) end
        return 1
        """

    /// KEYS[1] → {generation, key id or false, payload, leased 0/1, milliseconds left} or false.
    static let read =
        now + """
            local v = redis.call('HMGET', KEYS[1], 'g', 'k', 'p', 'o', 'u')
            if not v[3] or not v[1] then return false end
            local leased, left = 0, 0
            if v[4] and v[5] and tonumber(v[5]) and tonumber(v[5]) > now then leased = 1; left = tonumber(v[5]) - now end
            return {v[1], v[2], v[3], leased, left}
            """

    /// KEYS[1]; ARGV owner, lease ms, generation read → the new generation, or false.
    static let take =
        now + """
            local v = redis.call('HMGET', KEYS[1], 'g', 'o', 'u')
            if not v[1] or v[1] ~= ARGV[3] then return false end
            if v[2] and v[3] and tonumber(v[3]) and tonumber(v[3]) > now then return false end
            local g = redis.call('HINCRBY', KEYS[1], 'g', 1)
            redis.call('HSET', KEYS[1], 'o', ARGV[1], 'u', now + tonumber(ARGV[2]))
            return g
            """

    /// The fence every held-lease script starts with: KEYS[1]; ARGV generation, owner.
    private static let fence = """
        local v = redis.call('HMGET', KEYS[1], 'g', 'o')
        if not v[1] or v[1] ~= ARGV[1] or v[2] ~= ARGV[2] then return 0 end

        """

    /// ARGV generation, owner, lease ms → 1 renewed, 0 lost.
    static let renew =
        now + fence + """
            redis.call('HSET', KEYS[1], 'u', now + tonumber(ARGV[3]))
            return 1
            """

    /// ARGV generation, owner, channel, message, payload, key id ('' = none) → 1 stored, 0 lost.
    static let storeFenced =
        fence + """
            redis.call('HINCRBY', KEYS[1], 'g', 1)
            redis.call('HSET', KEYS[1], 'p', ARGV[5])
            if ARGV[6] == '' then redis.call('HDEL', KEYS[1], 'k') else redis.call('HSET', KEYS[1], 'k', ARGV[6]) end
            redis.call('HDEL', KEYS[1], 'o', 'u')
            redis.call('PUBLISH', ARGV[3], ARGV[4])
            return 1
            """

    /// ARGV generation, owner, channel, message → 1 deleted, 0 lost.
    static let deleteFenced =
        fence + """
            redis.call('DEL', KEYS[1])
            redis.call('PUBLISH', ARGV[3], ARGV[4])
            return 1
            """

    /// ARGV generation, owner, channel, message → 1 released, 0 lost.
    static let releaseFenced =
        fence + """
            redis.call('HDEL', KEYS[1], 'o', 'u')
            redis.call('PUBLISH', ARGV[3], ARGV[4])
            return 1
            """
}
