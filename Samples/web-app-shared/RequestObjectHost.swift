import Foundation
import Logging
import OIDC
import OIDCPostgres
import OIDCRedis

/// Where the request objects the app serves by reference are kept, each under an unguessable id until it expires.
protocol RequestObjectStore: Sendable {
    /// Keeps `object` under `id` for `lifetime` seconds, counted against `scope`'s share (the client's
    /// address; `nil`: none) where the store bounds scopes.
    /// - Throws: `request_object_store_full` when a bounded store has no room (in all, or for `scope`).
    func save(_ object: String, id: String, lifetime: Double, scope: String?) async throws
    /// The request object under `id`; `nil` when there is none or it has expired.
    func load(id: String) async throws -> String?
}

extension OIDCError.Code {
    /// The app's in-memory request-object store keeps as many request objects as it may, in all or for
    /// the client's address: the login is refused (503), no published request object is dropped.
    static let requestObjectStoreFull = OIDCError.Code(rawValue: "request_object_store_full")
}

/// Request objects in this process's memory (one instance: with two, the provider may fetch from the other),
/// bounded like `InMemoryPendingLoginStore`: at most `capacity` in all and `capacityPerScope` per client
/// address; a save beyond either is refused rather than dropping a request object a provider may still fetch.
/// Every request object the app publishes has the same lifetime (`--request-object-lifetime`), so they expire
/// in the order they were saved: expired ones are dropped from the front of that order on every save (each
/// save examines only what has expired, never the whole store).
actor InMemoryRequestObjectStore: RequestObjectStore {
    private struct Entry {
        let object: String
        let expiresAt: Date
        let scope: String?
    }

    private var objects: [String: Entry] = [:]
    /// Ids in the order saved (= the order they expire); `head` is the first not yet dropped.
    private var order: [String] = []
    private var head = 0
    private var perScope: [String: Int] = [:]
    let capacity: Int
    let capacityPerScope: Int
    let clock: @Sendable () -> Date

    init(capacity: Int = 100_000, capacityPerScope: Int? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        let total = max(1, capacity)
        self.capacity = total
        self.capacityPerScope = min(total, max(1, capacityPerScope ?? total / 100))
        self.clock = clock
    }

    func save(_ object: String, id: String, lifetime: Double, scope: String?) throws {
        let now = clock()
        dropExpired(now: now)
        guard objects.count < capacity else {
            throw OIDCError(.requestObjectStoreFull, "the request-object store is full (\(capacity) request objects)")
        }
        if let scope {
            guard perScope[scope, default: 0] < capacityPerScope else {
                throw OIDCError(.requestObjectStoreFull, "this client's share of the request-object store is full (\(capacityPerScope) request objects)")
            }
            perScope[scope, default: 0] += 1
        }
        if let replaced = objects[id] { release(replaced) }  // ids are random: not expected
        objects[id] = Entry(object: object, expiresAt: now.addingTimeInterval(lifetime), scope: scope)
        order.append(id)
    }

    func load(id: String) -> String? {
        guard let entry = objects[id], entry.expiresAt > clock() else { return nil }
        return entry.object
    }

    /// How many request objects (live, or expired and not yet dropped) the store holds, in all and for `scope`.
    var count: Int { objects.count }
    func count(scope: String) -> Int { perScope[scope, default: 0] }

    /// Drops the request objects at the front of the saving order that have expired; stops at the first live one.
    private func dropExpired(now: Date) {
        while head < order.count {
            let id = order[head]
            if let entry = objects[id] {
                guard entry.expiresAt <= now else { break }
                objects[id] = nil
                release(entry)
            }
            head += 1
        }
        // The dropped prefix is cut off once it is half the array (amortized O(1) per save).
        if head > 1_024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }

    private func release(_ entry: Entry) {
        guard let scope = entry.scope else { return }
        let left = perScope[scope, default: 1] - 1
        perScope[scope] = left > 0 ? left : nil
    }
}

/// Request objects in PostgreSQL, shared by every instance behind one base URL (the provider's fetch may reach
/// any of them). OIDCPostgres's `PostgresSessionIndex` in its own table: a row keyed by the SHA-256 of the id,
/// sealed with `--database-key`, never returned once expired (the database's clock), expired rows deleted on save.
struct PostgresRequestObjectStore: RequestObjectStore {
    let index: PostgresSessionIndex
    /// The row's `iss` (the index's searchable columns; request objects are never searched).
    let issuer: String

    init(database: PostgresDatabase, encryption: TokenEncryption?, issuer: String) throws {
        index = try PostgresSessionIndex(database: database, table: TableName("hbapp_request_objects"), encryption: encryption)
        self.issuer = issuer
    }

    func createTable() async throws { try await index.createTable() }

    /// Saves the row; `scope` is not used (the table has no bound: a rate limit in front of `/login` is the deployment's).
    func save(_ object: String, id: String, lifetime: Double, scope: String?) async throws {
        try await index.save(
            Array(object.utf8), handle: id, issuer: issuer, subject: "request-object", sessionID: nil,
            expiresIn: lifetime)
    }

    func load(id: String) async throws -> String? {
        try await index.load(handle: id).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Request objects in Redis or Valkey, shared by every instance behind one base URL: OIDCRedis's
/// `RedisSessionIndex` under its own namespace (`hbapp:request-objects`), keyed by the SHA-256 of the id, sealed
/// with `--database-key`, expired by the server: the same rules as ``PostgresRequestObjectStore``.
struct RedisRequestObjectStore: RequestObjectStore {
    let index: RedisSessionIndex
    /// The entry's `iss` (the index's searchable fields; request objects are never searched).
    let issuer: String

    init(database: RedisDatabase, encryption: TokenEncryption?, issuer: String) throws {
        index = try RedisSessionIndex(database: database, namespace: "hbapp:request-objects", encryption: encryption)
        self.issuer = issuer
    }

    /// Saves the entry; `scope` is not used (no count bound: a rate limit in front of `/login` is the deployment's).
    /// Its `sub` is a fresh random value, not one shared name: the index's set of that `sub` then holds this entry
    /// alone and expires with it (one set for every request object would keep growing while logins keep coming).
    func save(_ object: String, id: String, lifetime: Double, scope: String?) async throws {
        let subject = "request-object:" + RandomHandle.make()
        try await index.save(Array(object.utf8), handle: id, issuer: issuer, subject: subject, sessionID: nil, expiresIn: lifetime)
    }

    func load(id: String) async throws -> String? {
        try await index.load(handle: id).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// The request objects of logins started with `--request-object by-reference` (OpenID Connect Core §6.2,
/// RFC 9101 §5.2): each login's request object gets a fresh random id (256 bits, ``newID()``) whose
/// `<base-url>/request-objects/<id>` (``location(of:)``) is its `request_uri`; ``publish(_:id:scope:)`` keeps it
/// there for the request object's lifetime, and only once the login's pending login is saved (LoginStarter);
/// `answer` serves it as `application/oauth-authz-req+jwt` (unknown or expired: 404). A request object holds no
/// secret beyond the login's state, nonce and PKCE challenge; only its id must stay unguessable, so the log names
/// an id by its first 8 characters.
struct RequestObjectHost: Sendable {
    /// The path prefix of the served request objects.
    static let pathPrefix = "/request-objects/"
    let store: any RequestObjectStore
    let baseURL: String
    let lifetime: Double
    let logger: Logger

    /// A fresh id for a request object (256 random bits, base64url).
    static func newID() throws -> String { RandomHandle.make() }

    /// Where the request object under `id` is served: the login's `request_uri`.
    func location(of id: String) throws -> URL {
        guard let url = URL(string: baseURL + Self.pathPrefix + id) else {
            throw OIDCError(.requestObjectFailed, "the request object's URL could not be made")
        }
        return url
    }

    /// Stores `object` under `id` (counted against `scope`, the client's address), served from then on.
    /// - Throws: `request_object_store_full`, or the store's failure.
    func publish(_ object: String, id: String, scope: String?) async throws {
        try await store.save(object, id: id, lifetime: lifetime, scope: scope)
        logger.info("request object published", metadata: ["request_object": "\(Self.shortID(id))"])
    }

    /// `GET /request-objects/<id>`: the request object, or 404.
    func answer(id: String?) async -> TransportResponse {
        // Ids are this app's own (43 base64url characters); anything else is not looked up.
        guard let id, (16...128).contains(id.utf8.count),
            id.utf8.allSatisfy({
                $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0)
                    || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else {
            return notFound()
        }
        let object: String?
        do { object = try await store.load(id: id) } catch {
            logger.warning("request object lookup failed: \(WebApp.describe(error))")
            return TransportResponse(status: 500, headers: ["Cache-Control": "no-store"])
        }
        guard let object else {
            logger.info("request object not found", metadata: ["request_object": "\(Self.shortID(id))"])
            return notFound()
        }
        logger.info("request object served", metadata: ["request_object": "\(Self.shortID(id))"])
        return TransportResponse(
            status: 200, headers: ["Content-Type": "application/oauth-authz-req+jwt", "Cache-Control": "no-store"], body: Array(object.utf8))
    }

    private func notFound() -> TransportResponse {
        WebAnswer.text(404, "no such request object\n")
    }

    /// The first 8 characters of an id: enough to follow it in the log, far too few to fetch it.
    static func shortID(_ id: String) -> String { String(id.prefix(8)) }
}
