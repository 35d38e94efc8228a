import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OIDC
import OIDCPostgres

/// Where the request objects the app serves by reference are kept, each under an unguessable id until it expires.
protocol RequestObjectStore: Sendable {
    /// Keeps `object` under `id` for `lifetime` seconds.
    func save(_ object: String, id: String, lifetime: Double) async throws
    /// The request object under `id`; `nil` when there is none or it has expired.
    func load(id: String) async throws -> String?
}

/// Request objects in this process's memory (one instance: with two, the provider may fetch from the other).
actor InMemoryRequestObjectStore: RequestObjectStore {
    private var objects: [String: (object: String, expiresAt: Date)] = [:]

    func save(_ object: String, id: String, lifetime: Double) {
        let now = Date()
        objects = objects.filter { $0.value.expiresAt > now }
        objects[id] = (object, now.addingTimeInterval(lifetime))
    }

    func load(id: String) -> String? {
        guard let entry = objects[id], entry.expiresAt > Date() else { return nil }
        return entry.object
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

    func save(_ object: String, id: String, lifetime: Double) async throws {
        try await index.save(Array(object.utf8), handle: id, issuer: issuer, subject: "request-object", sessionID: nil,
                             expiresIn: lifetime)
    }

    func load(id: String) async throws -> String? {
        try await index.load(handle: id).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// The request objects of logins started with `--request-object by-reference` (OpenID Connect Core §6.2,
/// RFC 9101 §5.2): `publish` keeps each under a fresh random id (256 bits) for the request object's lifetime and
/// returns `<base-url>/request-objects/<id>`, its `request_uri`; `answer` serves it there as
/// `application/oauth-authz-req+jwt` (unknown or expired: 404). A request object holds no secret beyond the
/// login's state, nonce and PKCE challenge; only its id must stay unguessable, so the log names an id by its
/// first 8 characters.
struct RequestObjectHost: Sendable {
    /// The path prefix of the served request objects.
    static let pathPrefix = "/request-objects/"
    let store: any RequestObjectStore
    let baseURL: String
    let lifetime: Double
    let logger: Logger

    /// Stores `object` and returns its URL (the login's `request_uri`).
    func publish(_ object: String) async throws -> URL {
        let id = try OAuthState.random().value
        try await store.save(object, id: id, lifetime: lifetime)
        guard let url = URL(string: baseURL + Self.pathPrefix + id) else {
            throw OIDCError(.requestObjectFailed, "the request object's URL could not be made")
        }
        logger.info("request object published", metadata: ["request_object": "\(Self.shortID(id))"])
        return url
    }

    /// `GET /request-objects/<id>`: the request object, or 404.
    func answer(id: String?) async -> Response {
        // Ids are this app's own (43 base64url characters); anything else is not looked up.
        guard let id, (16...128).contains(id.utf8.count),
              id.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0)
                  || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
            return notFound()
        }
        let object: String?
        do { object = try await store.load(id: id) } catch {
            logger.warning("request object lookup failed: \(WebApp.describe(error))")
            return Response(status: .internalServerError, headers: [.cacheControl: "no-store"])
        }
        guard let object else {
            logger.info("request object not found", metadata: ["request_object": "\(Self.shortID(id))"])
            return notFound()
        }
        logger.info("request object served", metadata: ["request_object": "\(Self.shortID(id))"])
        return Response(status: .ok, headers: [.contentType: "application/oauth-authz-req+jwt", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: object)))
    }

    private func notFound() -> Response {
        Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: "no such request object\n")))
    }

    /// The first 8 characters of an id: enough to follow it in the log, far too few to fetch it.
    static func shortID(_ id: String) -> String { String(id.prefix(8)) }
}
