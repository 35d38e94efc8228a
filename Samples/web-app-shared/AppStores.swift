import Foundation
import OIDC
import OIDCPostgres
import OIDCRedis
import OIDCResourceServer
import OIDCSession

/// Where the app keeps its state: in this process's memory (one instance), or with `--database` in
/// PostgreSQL or in Redis / Valkey (shared by every instance; the URL's scheme chooses).
///
/// Back-channel logout tokens and DPoP proofs are remembered in two replay caches, never one: a client
/// that floods `/api/resource` with fresh proofs (its own bound token is enough) fills at most the DPoP
/// cache, and the provider's logout tokens are still accepted.
struct AppStores: Sendable {
    /// Logins in progress, counted per client address (`--pending-logins`, `--pending-logins-per-client`).
    let pendingLogins: any PendingLoginStore
    let sessions: any SessionDirectory
    /// The `jti`s of back-channel logout tokens.
    let logoutTokenReplays: any ReplayCache
    /// The `jti`s of DPoP proofs at `/api/resource`.
    let dpopProofReplays: any ReplayCache
    /// The `jti`s of Shared Signals SETs (`--ssf-transmitter`): a SET pushed to one instance is not acted on again at another.
    let securityEventReplays: any ReplayCache
    /// The request objects served by reference (used with `--request-object by-reference`).
    let requestObjects: any RequestObjectStore
    /// The pool, with `--database`.
    let database: SharedDatabase?
    /// With a Redis `--database`: the transport that shares the provider's JWK Set between instances (one
    /// fetch per key-set change for all of them), wrapping the app's transport; `nil` otherwise.
    let keySetSharing: RedisKeySetSharing?

    /// Everything in memory, bounded as `options` say.
    static func inMemory(_ options: Options) -> AppStores {
        AppStores(
            pendingLogins: InMemoryPendingLoginStore(capacity: options.pendingLogins, capacityPerScope: options.pendingLoginsPerClient),
            sessions: InMemorySessionDirectory(),
            logoutTokenReplays: InMemoryReplayCache(),
            dpopProofReplays: InMemoryReplayCache(),
            securityEventReplays: InMemoryReplayCache(),
            requestObjects: InMemoryRequestObjectStore(capacity: options.pendingLogins, capacityPerScope: options.pendingLoginsPerClient),
            database: nil, keySetSharing: nil)
    }

    /// The stores `--database` names: `redis://` or `rediss://` in Redis / Valkey, anything else (a libpq URI) in PostgreSQL.
    static func shared(url: String, options: Options, issuer: String, transport: any HTTPTransport) async throws -> AppStores {
        let scheme = url.prefix(while: { $0 != ":" }).lowercased()
        if scheme == "redis" || scheme == "rediss" {
            return try await redis(url: url, options: options, issuer: issuer, transport: transport)
        }
        return try await postgres(url: url, options: options, issuer: issuer)
    }

    /// The rows' (or Redis values') AES-256-GCM sealing from `--database-key`, if given (every instance needs the same key).
    static func encryption(_ options: Options) throws -> TokenEncryption? {
        try options.databaseKey().map { try TokenEncryption(current: TokenEncryptionKey(id: "hbapp-1", bytes: $0)) }
    }

    /// Everything in PostgreSQL at `url` (tables made here), rows sealed with `--database-key` when given.
    static func postgres(url: String, options: Options, issuer: String) async throws -> AppStores {
        let pool = try PostgresDatabase(url: url)
        // Rows sealed with AES-256-GCM when --database-key is given (every instance needs the same key).
        let encryption = try encryption(options)
        let logins = try PostgresPendingLoginStore(database: pool, encryption: encryption, capacityPerScope: options.pendingLoginsPerClient)
        try await logins.createTable()
        let directory = try PostgresSessionDirectory(database: pool, encryption: encryption)
        try await directory.createTables()
        // DPoP proofs and logout tokens are one-time: every instance must see the others' uses; each kind in a table of its own.
        let logoutReplays = try PostgresReplayCache(database: pool)
        try await logoutReplays.createTable()
        let dpopReplays = try PostgresReplayCache(database: pool, table: TableName("hbapp_dpop_proof_replays"))
        try await dpopReplays.createTable()
        let setReplays = try PostgresReplayCache(database: pool, table: TableName("hbapp_security_event_replays"))
        try await setReplays.createTable()
        var objects: any RequestObjectStore = InMemoryRequestObjectStore(
            capacity: options.pendingLogins,
            capacityPerScope: options.pendingLoginsPerClient)
        if options.requestObject == .byReference {
            // Shared: the provider's fetch may reach any instance.
            let shared = try PostgresRequestObjectStore(database: pool, encryption: encryption, issuer: issuer)
            try await shared.createTable()
            objects = shared
        }
        return AppStores(
            pendingLogins: logins, sessions: directory, logoutTokenReplays: logoutReplays, dpopProofReplays: dpopReplays,
            securityEventReplays: setReplays,
            requestObjects: objects, database: .postgres(pool), keySetSharing: nil)
    }

    /// Everything in Redis or Valkey at `url` (keys under `hbapp:`), values sealed with `--database-key` when
    /// given: the same stores as PostgreSQL's, through OIDCRedis, and the provider's JWK Set shared.
    static func redis(url: String, options: Options, issuer: String, transport: any HTTPTransport) async throws -> AppStores {
        let pool = try RedisDatabase(url: url, maximumConnections: 8, caFile: options.databaseCAPath, clientName: "hummingbird-app")
        do {
            let encryption = try encryption(options)
            let logins = try RedisPendingLoginStore(
                database: pool, namespace: "hbapp:pending", encryption: encryption, capacityPerScope: options.pendingLoginsPerClient)
            let directory = try RedisSessionDirectory(database: pool, encryption: encryption)
            // DPoP proofs and logout tokens are one-time: every instance must see the others' uses; each kind under its own keys.
            let logoutReplays = try RedisReplayCache(database: pool, namespace: "hbapp:logout-token-replays")
            let dpopReplays = try RedisReplayCache(database: pool, namespace: "hbapp:dpop-proof-replays")
            let setReplays = try RedisReplayCache(database: pool, namespace: "hbapp:security-event-replays")
            var objects: any RequestObjectStore = InMemoryRequestObjectStore(
                capacity: options.pendingLogins,
                capacityPerScope: options.pendingLoginsPerClient)
            if options.requestObject == .byReference {
                // Shared: the provider's fetch may reach any instance.
                objects = try RedisRequestObjectStore(database: pool, encryption: encryption, issuer: issuer)
            }
            // Fails now, naming the server, rather than at the first login: a wrong URL, password or CA stops the start.
            try await directory.check()
            return AppStores(
                pendingLogins: logins, sessions: directory, logoutTokenReplays: logoutReplays, dpopProofReplays: dpopReplays,
                securityEventReplays: setReplays, requestObjects: objects, database: .redis(pool),
                keySetSharing: try RedisKeySetSharing(database: pool, transport: transport, namespace: "hbapp:jwks"))
        } catch {
            pool.close()
            throw error
        }
    }
}

/// The connection pool behind `--database`, closed when the app stops.
enum SharedDatabase: Sendable {
    case postgres(PostgresDatabase)
    case redis(RedisDatabase)

    /// The store's name in the "listening" log line.
    var name: String {
        switch self {
        case .postgres: "postgresql"
        case .redis: "redis"
        }
    }

    func close() {
        switch self {
        case .postgres(let pool): pool.close()
        case .redis(let pool): pool.close()
        }
    }
}
