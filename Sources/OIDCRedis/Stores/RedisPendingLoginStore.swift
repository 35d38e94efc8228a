import JOSE
import OIDC
import OIDCSession

// The pending_login_* error codes are OIDCSession's (PendingLoginStore.swift), shared by every store.

/// Logins in progress in Redis or Valkey, shared by every replica: each consumed exactly once, on whichever
/// replica the provider's redirect comes back to.
///
/// - Key `NAMESPACE:SHA256(key)` (hex; the application's key itself is never stored), a hash of the value
///   (JSON bytes, sealed with AES-256-GCM when ``/OIDCSession/TokenEncryption`` is given: it holds the PKCE
///   verifier and nonce), its key id and its expiry; the server expires the key (`PEXPIRE`) a minute after
///   the login's own expiry, so an expired login is still told apart (`pending_login_expired`) for a while.
/// - ``consumeBytes(key:)`` reads and deletes in one script: of any number of callbacks with the same key, on
///   any replicas, exactly one gets the value and every other fails with `pending_login_not_found`.
/// - A save with a scope (the client's address) is refused with `pending_login_store_full` once the scope
///   holds `capacityPerScope` live logins (a sorted set per scope, trimmed by expiry in the same script:
///   the count and the insert are one atomic step, so the bound is exact across replicas).
public struct RedisPendingLoginStore: PendingLoginStore, CustomStringConvertible {
    /// The pool the store uses.
    package let database: RedisDatabase
    /// The key prefix (default `oidc:pending`).
    public let namespace: String
    /// The most live logins saved under one scope.
    package let capacityPerScope: Int
    private let sealing: RowSealing

    /// A store under `namespace`; `encryption` seals the values at rest (recommended); at most
    /// `capacityPerScope` (at least 1) live logins per scope.
    /// - Throws: `invalid_redis_namespace`.
    public init(database: RedisDatabase, namespace: String = "oidc:pending", encryption: TokenEncryption? = nil, capacityPerScope: Int = 1_000) throws {
        self.database = database
        self.namespace = try RedisNamespace.check(namespace)
        self.capacityPerScope = max(1, capacityPerScope)
        sealing = RowSealing(encryption: encryption, purpose: "oidc-pending-login")
    }

    /// `RedisPendingLoginStore(namespace: NAME)`.
    public var description: String { "RedisPendingLoginStore(namespace: \(namespace))" }

    /// Saves raw bytes under `key`, counted against `scope`'s share.
    /// - Throws: `pending_login_exists` when `key` is already saved; `pending_login_store_full` when `scope`
    ///   holds `capacityPerScope` live logins; `pending_login_unreadable` for a lifetime out of range.
    public func saveBytes(_ bytes: [UInt8], key: String, expiresIn: Double, scope: String?) async throws {
        try PendingLoginCoding.checkLifetime(expiresIn)
        let hash = try PendingLoginCoding.keyHash(key)
        let (keyID, payload) = try sealing.seal(bytes, rowKey: hash)
        let scopeKey = scope.map { "\(namespace):scope:\(RedisNamespace.hex(DigestAlgorithm.sha256.hash(Array($0.utf8))))" } ?? ""
        let milliseconds = (expiresIn * 1000).rounded(.up).wholeInt ?? 1
        let reply = try await database.eval(
            Self.save, keys: [entryKey(hash), scopeKey.isEmpty ? entryKey(hash) : scopeKey],
            arguments: [
                payload, Array((keyID ?? "").utf8), Array(String(max(1, milliseconds)).utf8), Array((scopeKey.isEmpty ? "" : "1").utf8),
                Array(String(capacityPerScope).utf8), Array(RedisNamespace.hex(hash).utf8),
            ])
        switch try reply.integer("pending login save") {
        case 1: return
        case 0: throw OIDCError(.pendingLoginExists, "a pending login with this key already exists")
        default: throw OIDCError(.pendingLoginStoreFull, "this scope's share of the pending logins is full (\(capacityPerScope) logins in progress)")
        }
    }

    /// Takes the raw bytes saved under `key`: at most once, on any replica.
    /// - Throws: `pending_login_not_found` (unknown, replayed or purged), `pending_login_expired`, `decryption_failed`.
    public func consumeBytes(key: String) async throws -> [UInt8] {
        let hash = try PendingLoginCoding.keyHash(key)
        let reply = try await database.eval(Self.consume, keys: [entryKey(hash)], arguments: [Array(RedisNamespace.hex(hash).utf8)])
        guard reply != .null else {
            throw OIDCError(.pendingLoginNotFound, "no pending login for this key (unknown, already used, or expired and purged)")
        }
        let fields = try reply.array("pending login")
        guard fields.count == 3, let payload = try fields[0].bytes("pending login payload") else {
            throw OIDCError(.invalidRedisValue, "the pending login's record has an unexpected form")
        }
        guard try fields[2].integer("pending login expiry flag") == 1 else {
            throw OIDCError(.pendingLoginExpired, "the pending login for this key has expired")
        }
        let keyID = try fields[1].text("key id")
        return try sealing.open(payload, keyID: keyID?.isEmpty == false ? keyID : nil, rowKey: hash)
    }

    private func entryKey(_ hash: [UInt8]) -> String { "\(namespace):\(RedisNamespace.hex(hash))" }

    /// KEYS entry, scope set (the entry again when no scope); ARGV payload, key id, lifetime ms, scoped ('1'/''),
    /// capacity, member → 1 saved, 0 exists, -1 full.
    static let save =
        TokenScripts.now + """
            if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
            local expires = now + tonumber(ARGV[3])
            if ARGV[4] == '1' then
                redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
                if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return -1 end
                redis.call('ZADD', KEYS[2], expires, ARGV[6])
                if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) + 60000 then redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]) + 60000) end
            end
            redis.call('HSET', KEYS[1], 'p', ARGV[1], 'k', ARGV[2], 'e', expires, 's', ARGV[4] == '1' and KEYS[2] or '')
            redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + 60000)
            return 1
            """

    /// KEYS entry; ARGV member → {payload, key id, live 1/0} or false; the entry deleted, its scope's count freed.
    static let consume =
        TokenScripts.now + """
            local v = redis.call('HMGET', KEYS[1], 'p', 'k', 'e', 's')
            if not v[1] then return false end
            redis.call('DEL', KEYS[1])
            if v[4] and v[4] ~= '' then redis.call('ZREM', v[4], ARGV[1]) end
            local live = 0
            if v[3] and tonumber(v[3]) and tonumber(v[3]) > now then live = 1 end
            return {v[1], v[2] or '', live}
            """
}
