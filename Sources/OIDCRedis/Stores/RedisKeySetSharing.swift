import JOSE
import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ``/OIDCCore/HTTPTransport`` for JWK Set caches that shares every fetched JWK Set through Redis or Valkey:
/// one fetch per key-set change across all replicas, each copy served with its fetch time.
///
/// Give it to ``/OIDCCore/JWKSetCache`` or ``/OIDCCore/JWKSetCacheRegistry`` (and so to the validators built
/// on them) in place of the transport it wraps. A request for a JWK Set (a `GET` whose `Accept` names
/// `application/jwk-set+json`, as the caches send) is answered from the shared copy when another replica
/// fetched a set this replica has not seen yet; otherwise this replica fetches it, one replica at a time (a
/// short lock key), and stores the `200` answer with the server's time. A shared copy is served with its
/// `Cache-Control: max-age` reduced by its age (and an `Age` header), so every replica's copy expires when the
/// first fetch's does, as panva's exported caches keep their fetch time. A replica that finds a `kid` it does
/// not know asks again: if another replica already fetched the new set, that one is served; if not, this one
/// fetches it. Every other request passes through unchanged, and the answer is validated by the cache as any
/// fetched document is (a shared copy is never trusted more than a download).
///
/// Keys: `NAMESPACE:SHA256(URL)` (hex; a hash of the body, its `Cache-Control`, its fetch time and a version),
/// and the lock key beside it. A Redis failure falls back to fetching directly: sharing saves fetches, it never
/// stops verification.
public struct RedisKeySetSharing: HTTPTransport, CustomStringConvertible {
    /// The pool used.
    package let database: RedisDatabase
    /// The transport that fetches.
    package let transport: any HTTPTransport
    /// The key prefix (default `oidc:jwks`).
    public let namespace: String
    /// The shared version each URL's answer had when this replica last got it.
    private let seen = Locked<[String: Int64]>([:])
    /// The most bytes of one shared set (the caches' own limit applies again when they parse it).
    static let maximumBodyBytes = 1 << 20

    /// Shares the JWK Sets fetched through `transport`.
    /// - Throws: `invalid_redis_namespace`.
    public init(database: RedisDatabase, transport: any HTTPTransport, namespace: String = "oidc:jwks") throws {
        self.database = database
        self.transport = transport
        self.namespace = try RedisNamespace.check(namespace)
    }

    /// `RedisKeySetSharing(namespace: NAME)`.
    public var description: String { "RedisKeySetSharing(namespace: \(namespace))" }

    /// Sends `request`: a JWK Set fetch through the shared copy, anything else straight to the wrapped transport.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.method.rawValue == "GET", request.headers["Accept"]?.contains("application/jwk-set+json") == true else {
            return try await transport.send(request)
        }
        let key = "\(namespace):\(RedisNamespace.hex(DigestAlgorithm.sha256.hash(Array(request.url.absoluteString.utf8))))"
        do {
            return try await shared(request, key: key)
        } catch let error as OIDCError where [.redisUnavailable, .redisTimeout, .redisError, .invalidRedisValue].contains(error.code) {
            return try await transport.send(request)  // Redis trouble: fetch directly
        }
    }

    private func shared(_ request: TransportRequest, key: String) async throws -> TransportResponse {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds((min(max(request.timeout, 1), 120) * 1000).wholeInt ?? 30_000))
        let lock = Array("\(key):lock".utf8)
        let owner = UUID().uuidString
        let message = database.changeMessage(key)
        while true {
            let mark = database.subscriber.mark(message)
            if let copy = try await read(key), copy.version != seen.withLock({ $0[key] }) {
                seen.withLock { $0[key] = copy.version }
                return copy.response
            }
            let lockMilliseconds = String((min(max(request.timeout, 1), 120) * 1000).wholeInt ?? 30_000)
            let taken = try await database.command([
                Array("SET".utf8), lock, Array(owner.utf8), Array("NX".utf8), Array("PX".utf8), Array(lockMilliseconds.utf8),
            ])
            if taken != .null {
                let response: TransportResponse
                do { response = try await transport.send(request) } catch {
                    _ = try? await database.eval(Self.unlock, keys: [String(decoding: lock, as: UTF8.self)], arguments: [Array(owner.utf8)])
                    throw error
                }
                guard response.status == 200, response.body.count <= Self.maximumBodyBytes else {
                    _ = try? await database.eval(Self.unlock, keys: [String(decoding: lock, as: UTF8.self)], arguments: [Array(owner.utf8)])
                    return response
                }
                let version = try await database.eval(
                    Self.store, keys: [key, String(decoding: lock, as: UTF8.self)],
                    arguments: [
                        response.body, Array((response.headers["Cache-Control"] ?? "").utf8), Array(owner.utf8),
                        Array(RedisChangeFeed.channel.utf8), Array(message.utf8),
                    ]
                ).integer("key set version")
                seen.withLock { $0[key] = version }
                return response
            }
            // Another replica is fetching: wait for its copy (or its lock to lapse), then look again.
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return try await transport.send(request) }
            await database.subscriber.wait(for: message, since: mark, timeout: min(Double(left.components.seconds) + 1, 5))
        }
    }

    /// The shared copy as a response: its body, its `Cache-Control` with `max-age` reduced by its age, and
    /// `Age`; `nil` when there is none, or it is older than its own `max-age`.
    private func read(_ key: String) async throws -> (version: Int64, response: TransportResponse)? {
        let reply = try await database.eval(Self.read, keys: [key], arguments: [])
        guard reply != .null else { return nil }
        let fields = try reply.array("shared key set")
        guard fields.count == 4, let body = try fields[1].bytes("shared key set body") else {
            throw OIDCError(.invalidRedisValue, "the shared key set has an unexpected form")
        }
        let version = try fields[0].integer("shared key set version")
        let cacheControl = try fields[2].text("shared key set Cache-Control") ?? ""
        let age = max(0, try fields[3].integer("shared key set age")) / 1000
        var headers: HeaderFields = ["Content-Type": "application/jwk-set+json", "Age": String(age)]
        if let maxAge = Self.maxAge(cacheControl) {
            guard age < maxAge else { return nil }
            headers.add("Cache-Control", "max-age=\(maxAge - age)")
        } else if !cacheControl.isEmpty {
            headers.add("Cache-Control", cacheControl)
        }
        return (version, TransportResponse(status: 200, headers: headers, body: body))
    }

    /// The `max-age` of a `Cache-Control` value, when it has a usable one.
    static func maxAge(_ value: String) -> Int64? {
        for directive in value.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.filter { $0 != " " && $0 != "\t" && $0 != "\"" } }
            guard parts.count == 2, parts[0].lowercased() == "max-age", parts[1].count <= 12, let seconds = Int64(parts[1]), seconds >= 0 else { continue }
            return seconds
        }
        return nil
    }

    /// KEYS copy → {version, body, Cache-Control, age ms} or false.
    static let read =
        TokenScripts.now + """
            local v = redis.call('HMGET', KEYS[1], 'v', 'b', 'c', 't')
            if not v[1] or not v[2] then return false end
            return {v[1], v[2], v[3] or '', now - tonumber(v[4] or now)}
            """

    /// KEYS copy, lock; ARGV body, Cache-Control, owner, channel, message → the new version.
    static let store =
        TokenScripts.now + """
            local version = redis.call('HINCRBY', KEYS[1], 'v', 1)
            redis.call('HSET', KEYS[1], 'b', ARGV[1], 'c', ARGV[2], 't', now)
            redis.call('PEXPIRE', KEYS[1], 86400000)
            if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
            redis.call('PUBLISH', ARGV[4], ARGV[5])
            return version
            """

    /// KEYS lock; ARGV owner: the lock released if it is still this caller's.
    static let unlock = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
        return 1
        """
}
