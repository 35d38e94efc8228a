import JOSE
import OIDC
import OIDCSession

/// A web application's logged-in sessions in Redis or Valkey, shared by every replica: the record behind an
/// opaque session cookie, findable again by the provider's `sid` or by `iss` + `sub` when a back-channel
/// logout token arrives (OpenID Connect Back-Channel Logout 1.0 §2.7). The same operations as
/// `OIDCPostgres`'s `PostgresSessionIndex`.
///
/// - Key `NAMESPACE:h:SHA256(handle)` (hex; never the handle), a hash of the record (the caller's bytes,
///   sealed with AES-256-GCM when ``/OIDCSession/TokenEncryption`` is given) and of `iss`, `sub` and `sid` in
///   the clear, expired by the server (`PEXPIRE`). Two sets per session find it again:
///   `NAMESPACE:sub:SHA1(iss, sub)` and `NAMESPACE:sid:SHA1(iss, sid)`; every change is one script.
/// - Deleting returns the deleted records, so the caller can clear what they point to (their tokens).
/// - For a standalone server or a primary with replicas (the scripts touch keys they compute; not Redis Cluster).
public struct RedisSessionIndex: Sendable, CustomStringConvertible {
    /// The pool the index uses.
    package let database: RedisDatabase
    /// The key prefix (default `oidc:sessions`).
    public let namespace: String
    private let sealing: RowSealing

    /// An index under `namespace`; `encryption` seals the records at rest (recommended).
    /// - Throws: `invalid_redis_namespace`.
    public init(database: RedisDatabase, namespace: String = "oidc:sessions", encryption: TokenEncryption? = nil) throws {
        self.database = database
        self.namespace = try RedisNamespace.check(namespace)
        sealing = RowSealing(encryption: encryption, purpose: "oidc-session-index")
    }

    /// `RedisSessionIndex(namespace: NAME)`.
    public var description: String { "RedisSessionIndex(namespace: \(namespace))" }

    /// Saves `record` under `handle` for `expiresIn` seconds (at most 400 days), replacing a record with the same handle.
    /// - Throws: `invalid_redis_value` for an empty or over-long handle, issuer or subject, a lifetime out of
    ///   range or a value with NUL; `redis_*` errors.
    public func save(_ record: [UInt8], handle: String, issuer: String, subject: String, sessionID: String?, expiresIn: Double) async throws {
        guard expiresIn.isFinite, expiresIn > 0, expiresIn <= 400 * 86_400, let milliseconds = (expiresIn * 1000).rounded(.up).wholeInt else {
            throw OIDCError(.invalidRedisValue, "expiresIn must be between 0 and 400 days")
        }
        for value in [issuer, subject, sessionID ?? "-"] {
            guard (1...2048).contains(value.utf8.count), !value.utf8.contains(0) else {
                throw OIDCError(.invalidRedisValue, "issuer, subject and sid are 1-2048 bytes without NUL")
            }
        }
        let hash = try Self.handleHash(handle)
        let (keyID, payload) = try sealing.seal(record, rowKey: hash)
        _ = try await database.eval(
            Self.save, keys: [],
            arguments: [
                Array(namespace.utf8), Array(RedisNamespace.hex(hash).utf8), Array(issuer.utf8), Array(subject.utf8),
                Array((sessionID ?? "").utf8), Array((keyID ?? "").utf8), payload, Array(String(max(1, milliseconds)).utf8),
            ])
    }

    /// The record saved under `handle`, or `nil` when there is none or it has expired.
    public func load(handle: String) async throws -> [UInt8]? {
        guard let hash = try? Self.handleHash(handle) else { return nil }
        let reply = try await database.command(
            [Array("HMGET".utf8), Array("\(namespace):h:\(RedisNamespace.hex(hash))".utf8), Array("p".utf8), Array("k".utf8)])
        let fields = try reply.array("session record")
        guard fields.count == 2, let payload = try fields[0].bytes("session record") else { return nil }
        return try open(payload, keyID: try fields[1].text("key id"), hash: hash)
    }

    /// Deletes the record saved under `handle`; returns it (`nil` when there was none).
    @discardableResult
    public func delete(handle: String) async throws -> [UInt8]? {
        guard let hash = try? Self.handleHash(handle) else { return nil }
        let reply = try await database.eval(Self.delete, keys: [], arguments: [Array(namespace.utf8), Array(RedisNamespace.hex(hash).utf8)])
        guard reply != .null else { return nil }
        let fields = try reply.array("session record")
        guard fields.count == 2, let payload = try fields[0].bytes("session record") else { return nil }
        return try open(payload, keyID: try fields[1].text("key id"), hash: hash)
    }

    /// Deletes the sessions a back-channel logout token names; returns their records.
    ///
    /// With `sessionID`: the sessions of `issuer` with that `sid`, and the sessions of `issuer` + `subject`
    /// that had no `sid` (when `subject` is given). Without: every session of `issuer` + `subject`. Neither: nothing.
    public func deleteSessions(issuer: String, subject: String?, sessionID: String?) async throws -> [[UInt8]] {
        guard subject != nil || sessionID != nil else { return [] }
        let reply = try await database.eval(
            Self.deleteMany, keys: [],
            arguments: [Array(namespace.utf8), Array(issuer.utf8), Array((subject ?? "").utf8), Array((sessionID ?? "").utf8)])
        let fields = try reply.array("deleted sessions")
        guard fields.count % 3 == 0 else { throw OIDCError(.invalidRedisValue, "the deleted sessions' reply has an unexpected form") }
        var records: [[UInt8]] = []
        for start in stride(from: 0, to: fields.count, by: 3) {
            guard let handleHex = try fields[start].text("session handle hash"), let hash = RedisNamespace.bytes(hex: handleHex),
                let payload = try fields[start + 1].bytes("session record")
            else { throw OIDCError(.invalidRedisValue, "a deleted session's record has an unexpected form") }
            records.append(try open(payload, keyID: try fields[start + 2].text("key id"), hash: hash))
        }
        return records
    }

    private func open(_ payload: [UInt8], keyID: String?, hash: [UInt8]) throws -> [UInt8] {
        try sealing.open(payload, keyID: keyID?.isEmpty == false ? keyID : nil, rowKey: hash)
    }

    /// SHA-256 of `handle`.
    private static func handleHash(_ handle: String) throws -> [UInt8] {
        guard !handle.isEmpty, handle.utf8.count <= 2048 else { throw OIDCError(.invalidRedisValue, "a session handle is 1-2048 bytes") }
        return DigestAlgorithm.sha256.hash(Array(handle.utf8))
    }

    /// The Lua helpers: the index sets' keys and the removal of one session from them.
    private static let helpers = """
        local ns = ARGV[1]
        local function subKey(iss, sub) return ns .. ':sub:' .. redis.sha1hex(iss .. '\\0' .. sub) end
        local function sidKey(iss, sid) return ns .. ':sid:' .. redis.sha1hex(iss .. '\\0' .. sid) end
        local function unindex(member, v)
            if v[1] then
                redis.call('SREM', subKey(v[1], v[2]), member)
                if v[3] and v[3] ~= '' then redis.call('SREM', sidKey(v[1], v[3]), member) end
            end
        end
        local function extend(key, ms)
            if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
        end

        """

    /// ARGV namespace, handle hex, iss, sub, sid ('' = none), key id, payload, lifetime ms.
    static let save =
        helpers + """
            local entry = ns .. ':h:' .. ARGV[2]
            unindex(ARGV[2], redis.call('HMGET', entry, 'i', 's', 'd'))
            redis.call('DEL', entry)
            redis.call('HSET', entry, 'i', ARGV[3], 's', ARGV[4], 'd', ARGV[5], 'k', ARGV[6], 'p', ARGV[7])
            local ms = tonumber(ARGV[8])
            redis.call('PEXPIRE', entry, ms)
            redis.call('SADD', subKey(ARGV[3], ARGV[4]), ARGV[2])
            extend(subKey(ARGV[3], ARGV[4]), ms)
            if ARGV[5] ~= '' then
                redis.call('SADD', sidKey(ARGV[3], ARGV[5]), ARGV[2])
                extend(sidKey(ARGV[3], ARGV[5]), ms)
            end
            return 1
            """

    /// ARGV namespace, handle hex → {payload, key id} or false.
    static let delete =
        helpers + """
            local entry = ns .. ':h:' .. ARGV[2]
            local v = redis.call('HMGET', entry, 'i', 's', 'd', 'p', 'k')
            if not v[4] then return false end
            redis.call('DEL', entry)
            unindex(ARGV[2], v)
            return {v[4], v[5] or ''}
            """

    /// ARGV namespace, iss, sub ('' = none), sid ('' = none) → flat {handle hex, payload, key id}…
    static let deleteMany =
        helpers + """
            local iss, sub, sid = ARGV[2], ARGV[3], ARGV[4]
            local out = {}
            local function take(set, check)
                for _, member in ipairs(redis.call('SMEMBERS', set)) do
                    local entry = ns .. ':h:' .. member
                    local v = redis.call('HMGET', entry, 'i', 's', 'd', 'p', 'k')
                    if not v[4] then
                        redis.call('SREM', set, member)
                    elseif v[1] == iss and check(v) then
                        redis.call('DEL', entry)
                        unindex(member, v)
                        table.insert(out, member); table.insert(out, v[4]); table.insert(out, v[5] or '')
                    end
                end
            end
            if sid ~= '' then take(sidKey(iss, sid), function(v) return v[3] == sid end) end
            if sub ~= '' then
                if sid ~= '' then
                    take(subKey(iss, sub), function(v) return v[2] == sub and (not v[3] or v[3] == '') end)
                else
                    take(subKey(iss, sub), function(v) return v[2] == sub end)
                end
            end
            return out
            """
}
