import Foundation
import OIDC
import OIDCPostgres
import OIDCResourceServer
import OIDCSession

/// Where the app keeps its state: in this process's memory (one instance), or with `--database` in
/// PostgreSQL (shared by every instance).
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
    /// The request objects served by reference (used with `--request-object by-reference`).
    let requestObjects: any RequestObjectStore
    /// The pool, with `--database`.
    let database: PostgresDatabase?

    /// Everything in memory, bounded as `options` say.
    static func inMemory(_ options: Options) -> AppStores {
        AppStores(
            pendingLogins: InMemoryPendingLoginStore(capacity: options.pendingLogins, capacityPerScope: options.pendingLoginsPerClient),
            sessions: InMemorySessionDirectory(),
            logoutTokenReplays: InMemoryReplayCache(),
            dpopProofReplays: InMemoryReplayCache(),
            requestObjects: InMemoryRequestObjectStore(capacity: options.pendingLogins, capacityPerScope: options.pendingLoginsPerClient),
            database: nil)
    }

    /// Everything in PostgreSQL at `url` (tables made here), rows sealed with `--database-key` when given.
    static func postgres(url: String, options: Options, issuer: String) async throws -> AppStores {
        let pool = try PostgresDatabase(url: url)
        // Rows sealed with AES-256-GCM when --database-key is given (every instance needs the same key).
        let encryption = try options.databaseKey().map { try TokenEncryption(current: TokenEncryptionKey(id: "hbapp-1", bytes: $0)) }
        let logins = try PostgresPendingLoginStore(database: pool, encryption: encryption, capacityPerScope: options.pendingLoginsPerClient)
        try await logins.createTable()
        let directory = try PostgresSessionDirectory(database: pool, encryption: encryption)
        try await directory.createTables()
        // DPoP proofs and logout tokens are one-time: every instance must see the others' uses; each kind in a table of its own.
        let logoutReplays = try PostgresReplayCache(database: pool)
        try await logoutReplays.createTable()
        let dpopReplays = try PostgresReplayCache(database: pool, table: TableName("hbapp_dpop_proof_replays"))
        try await dpopReplays.createTable()
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
            requestObjects: objects, database: pool)
    }
}
