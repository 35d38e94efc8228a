import Foundation
import JOSE
import OIDC
import OIDCSession

// The pending_login_* error codes are OIDCSession's (PendingLoginStore.swift), shared by every store.

/// Logins in progress, shared by every replica: each consumed exactly once, on whichever replica the
/// provider's redirect comes back to.
///
/// - Values are any `Codable` type (e.g. `PendingLogin`, or the client's
///   pending login), stored as JSON bytes, sealed with AES-256-GCM when
///   ``/OIDCSession/TokenEncryption`` is given (they hold the PKCE verifier and nonce).
/// - The row key is the SHA-256 of the application's key, not the key itself.
/// - ``consumeBytes(key:)`` is one `DELETE … RETURNING` statement: of any number of
///   callbacks with the same key, on any replicas, exactly one gets the value and
///   every other fails with `pending_login_not_found`.
/// - Expiry is judged by the database's clock (one clock for every replica); expired
///   rows are deleted by every save and by ``purgeExpired()``.
/// - A save with a scope (``saveBytes(_:key:expiresIn:scope:)``: the client's address, which
///   only the application knows) is refused with `pending_login_store_full` once the scope holds
///   `capacityPerScope` live rows, so one scope that floods the login route fills only its own
///   share. The scope is stored as its SHA-256. The count and the insert are one statement but
///   not serialized: saves racing under one scope on several connections may pass the share by
///   as many as race. The table has no total bound: a rate limit in front of the login route is
///   the deployment's.
public struct PostgresPendingLoginStore: PendingLoginStore, CustomStringConvertible {
    /// The pool the store uses.
    package let database: PostgresDatabase
    /// The table (default `oidc_pending_logins`).
    public let table: TableName
    /// The most live rows saved under one scope.
    package let capacityPerScope: Int
    private let sealing: RowSealing

    /// A store in `table`; `encryption` seals the values at rest (recommended); at most
    /// `capacityPerScope` (at least 1) live rows per scope.
    public init(
        database: PostgresDatabase, table: TableName? = nil, encryption: TokenEncryption? = nil,
        capacityPerScope: Int = 1_000
    ) throws {
        self.database = database
        self.table = try table ?? TableName("oidc_pending_logins")
        self.capacityPerScope = max(1, capacityPerScope)
        sealing = RowSealing(encryption: encryption, purpose: "oidc-pending-login")
    }

    /// `PostgresPendingLoginStore(table: NAME)`.
    public var description: String { "PostgresPendingLoginStore(table: \(table))" }

    /// Creates the table and its indexes if they do not exist (and adds the `scope_hash` column to a table
    /// made by an earlier version).
    public func createTable() async throws {
        try await database.createSchema([
            """
            CREATE TABLE IF NOT EXISTS \(table.quoted) (
                state_hash bytea PRIMARY KEY,
                key_id text,
                payload bytea NOT NULL,
                expires_at timestamptz NOT NULL,
                scope_hash bytea
            )
            """,
            "ALTER TABLE \(table.quoted) ADD COLUMN IF NOT EXISTS scope_hash bytea",
            "CREATE INDEX IF NOT EXISTS \(table.derived("expires_at")) ON \(table.quoted) (expires_at)",
            "CREATE INDEX IF NOT EXISTS \(table.derived("scope_hash")) ON \(table.quoted) (scope_hash) WHERE scope_hash IS NOT NULL",
        ])
    }

    /// Saves raw bytes under `key`, counted against `scope`'s share, deleting expired rows in the same statement.
    /// - Throws: `pending_login_exists` when `key` is already saved; `pending_login_store_full` when
    ///   `scope` holds `capacityPerScope` live rows; `pending_login_unreadable` for a lifetime out of range.
    public func saveBytes(_ bytes: [UInt8], key: String, expiresIn: Double, scope: String?) async throws {
        try PendingLoginCoding.checkLifetime(expiresIn)
        let hash = try PendingLoginCoding.keyHash(key)
        let scopeHash: PGParameter = scope.map { .bytes(DigestAlgorithm.sha256.hash(Array($0.utf8))) } ?? .null
        let (keyID, payload) = try sealing.sealRow(bytes, rowKey: hash)
        let rows = try await database.execute(
            """
            WITH purged AS (DELETE FROM \(table.quoted) WHERE expires_at <= now())
            INSERT INTO \(table.quoted) (state_hash, key_id, payload, expires_at, scope_hash)
            SELECT $1::bytea, $2::text, $3::bytea, now() + make_interval(secs => $4::double precision), $5::bytea
            WHERE $5::bytea IS NULL
               OR (SELECT count(*) FROM \(table.quoted) WHERE scope_hash = $5::bytea AND expires_at > now()) < $6::bigint
            ON CONFLICT (state_hash) DO NOTHING RETURNING 1
            """, [.bytes(hash), keyID, .bytes(payload), .text(String(expiresIn)), scopeHash, .text(String(capacityPerScope))])
        guard rows.values.count == 1 else {
            let existing = try await database.execute("SELECT 1 FROM \(table.quoted) WHERE state_hash = $1", [.bytes(hash)])
            guard existing.values.isEmpty else { throw OIDCError(.pendingLoginExists, "a pending login with this key already exists") }
            throw OIDCError(.pendingLoginStoreFull, "this scope's share of the pending-login table is full (\(capacityPerScope) logins in progress)")
        }
    }

    /// Takes the raw bytes saved under `key`: at most once, on any replica.
    /// - Throws: `pending_login_not_found` (unknown, replayed or purged), `pending_login_expired`, `decryption_failed`.
    public func consumeBytes(key: String) async throws -> [UInt8] {
        let hash = try PendingLoginCoding.keyHash(key)
        let rows = try await database.execute(
            "DELETE FROM \(table.quoted) WHERE state_hash = $1 RETURNING key_id, payload, (expires_at > now())::text", [.bytes(hash)])
        guard !rows.values.isEmpty else {
            throw OIDCError(.pendingLoginNotFound, "no pending login for this key (unknown, already used, or expired and purged)")
        }
        guard try rows.text(0, 2, "expiry flag") == "true" else {
            throw OIDCError(.pendingLoginExpired, "the pending login for this key has expired")
        }
        return try sealing.open(try rows.bytes(0, 1, "pending login payload"), keyID: rows.values[0][0], rowKey: hash)
    }

    /// Deletes expired rows; returns how many.
    @discardableResult
    public func purgeExpired() async throws -> Int {
        try await database.execute("DELETE FROM \(table.quoted) WHERE expires_at <= now()").affected
    }
}
