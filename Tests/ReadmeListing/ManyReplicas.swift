import Foundation
import OIDC
import OIDCPostgres
import OIDCSession

/// A back end's state where every replica sees it.
func replicatedState(
    databaseURL: String, keyBytes: [UInt8], oldKey: TokenEncryptionKey, pending: PendingLogin,
    stateFromCallback: String, userID: String, client: OIDCClient
) async throws -> AuthenticatedSession {
    // Any libpq connection string or URI; TLS options pass through to libpq, e.g.
    // "postgresql://app@db.internal/app?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem".
    let database = try PostgresDatabase(url: databaseURL, maximumConnections: 4)
    let encryption = try TokenEncryption(
        current: TokenEncryptionKey(id: "2026-11", bytes: keyBytes),  // 32 bytes
        previous: [oldKey])  // still readable

    // Logins: started on one replica, finished on any other, exactly once.
    let logins = try PostgresPendingLoginStore(database: database, encryption: encryption)
    try await logins.createTable()  // CREATE TABLE IF NOT EXISTS oidc_pending_logins
    try await logins.save(pending, key: pending.state, expiresIn: 600)
    let back = try await logins.consume(key: stateFromCallback, as: PendingLogin.self)  // replay: pending_login_not_found
    print(back.url)

    // Tokens: one row per user; the session refreshes once across all replicas.
    let store = try PostgresTokenStore(database: database, key: userID, encryption: encryption)
    try await store.createTable()  // oidc_tokens; table names configurable
    return try await client.session(
        configuration: .init(
            allowedOrigins: [URL(string: "https://api.example.com")!],
            store: store))  // refreshes through the client
}
