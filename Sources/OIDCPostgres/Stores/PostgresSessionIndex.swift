import Foundation
import JOSE
import OIDC
import OIDCSession

/// A web application's logged-in sessions, shared by every replica: the record behind an
/// opaque session cookie, findable again by the provider's `sid` or by `iss` + `sub` when a
/// back-channel logout token arrives (OpenID Connect Back-Channel Logout 1.0 §2.7).
///
/// - The row key is the SHA-256 of the session handle (the cookie value), never the handle.
/// - The record is the caller's bytes, sealed with AES-256-GCM when ``/OIDCSession/TokenEncryption`` is given
///   (it may hold an ID Token); `iss`, `sub` and `sid` are stored in the clear to be searchable.
/// - ``load(handle:)`` never returns an expired row; expired rows are deleted by every
///   ``save(_:handle:issuer:subject:sessionID:expiresIn:)`` and by ``purgeExpired()``.
/// - Deleting returns the deleted records, so the caller can clear what they point to (their tokens).
public struct PostgresSessionIndex: Sendable, CustomStringConvertible {
    /// The pool the index uses.
    package let database: PostgresDatabase
    /// The table (default `oidc_sessions`).
    public let table: TableName
    private let sealing: RowSealing

    /// An index in `table`; `encryption` seals the records at rest (recommended).
    public init(database: PostgresDatabase, table: TableName? = nil, encryption: TokenEncryption? = nil) throws {
        self.database = database
        self.table = try table ?? TableName("oidc_sessions")
        sealing = RowSealing(encryption: encryption, purpose: "oidc-session-index")
    }

    /// `PostgresSessionIndex(table: NAME)`.
    public var description: String { "PostgresSessionIndex(table: \(table))" }

    /// Creates the table and its indexes if they do not exist (safe from every replica at once).
    public func createTable() async throws {
        try await database.createSchema([
            """
            CREATE TABLE IF NOT EXISTS \(table.quoted) (
                handle_hash bytea PRIMARY KEY,
                issuer text NOT NULL,
                subject text NOT NULL,
                sid text,
                key_id text,
                payload bytea NOT NULL,
                expires_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX IF NOT EXISTS \(table.derived("subject")) ON \(table.quoted) (issuer, subject)",
            "CREATE INDEX IF NOT EXISTS \(table.derived("sid")) ON \(table.quoted) (issuer, sid)",
            "CREATE INDEX IF NOT EXISTS \(table.derived("expires_at")) ON \(table.quoted) (expires_at)",
        ])
    }

    /// Saves `record` under `handle` for `expiresIn` seconds (at most 400 days), replacing a
    /// record with the same handle, and deletes expired rows.
    /// - Throws: `invalid_database_row` for an empty or over-long handle, issuer or subject, a
    ///   lifetime out of range or a value with NUL; database errors.
    public func save(
        _ record: [UInt8], handle: String, issuer: String, subject: String, sessionID: String?,
        expiresIn: Double
    ) async throws {
        guard expiresIn.isFinite, expiresIn > 0, expiresIn <= 400 * 86_400 else {
            throw OIDCError(.invalidDatabaseRow, "expiresIn must be between 0 and 400 days")
        }
        for value in [issuer, subject, sessionID ?? "-"] {
            guard (1...2048).contains(value.utf8.count), !value.utf8.contains(0) else {
                throw OIDCError(.invalidDatabaseRow, "issuer, subject and sid are 1-2048 bytes without NUL")
            }
        }
        let hash = try Self.handleHash(handle)
        let (keyID, payload) = try sealing.sealRow(record, rowKey: hash)
        _ = try await database.execute(
            """
            WITH purged AS (DELETE FROM \(table.quoted) WHERE expires_at <= now())
            INSERT INTO \(table.quoted) (handle_hash, issuer, subject, sid, key_id, payload, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7::double precision))
            ON CONFLICT (handle_hash) DO UPDATE SET issuer = EXCLUDED.issuer, subject = EXCLUDED.subject,
                sid = EXCLUDED.sid, key_id = EXCLUDED.key_id, payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at
            """,
            [
                .bytes(hash), .text(issuer), .text(subject), sessionID.map { .text($0) } ?? .null, keyID, .bytes(payload),
                .text(String(expiresIn)),
            ])
    }

    /// The record saved under `handle`, or `nil` when there is none or it has expired.
    public func load(handle: String) async throws -> [UInt8]? {
        guard let hash = try? Self.handleHash(handle) else { return nil }
        let rows = try await database.execute(
            "SELECT key_id, payload FROM \(table.quoted) WHERE handle_hash = $1 AND expires_at > now()", [.bytes(hash)])
        guard !rows.values.isEmpty else { return nil }
        return try sealing.open(try rows.bytes(0, 1, "session record"), keyID: rows.values[0][0], rowKey: hash)
    }

    /// Deletes the record saved under `handle`; returns it (`nil` when there was none).
    @discardableResult
    public func delete(handle: String) async throws -> [UInt8]? {
        guard let hash = try? Self.handleHash(handle) else { return nil }
        let rows = try await database.execute(
            "DELETE FROM \(table.quoted) WHERE handle_hash = $1 RETURNING key_id, payload", [.bytes(hash)])
        guard !rows.values.isEmpty else { return nil }
        return try sealing.open(try rows.bytes(0, 1, "session record"), keyID: rows.values[0][0], rowKey: hash)
    }

    /// Deletes the sessions a back-channel logout token names; returns their records.
    ///
    /// With `sessionID`: the sessions of `issuer` with that `sid`, and the sessions of `issuer` +
    /// `subject` that had no `sid` (when `subject` is given). Without: every session of `issuer` +
    /// `subject`. Neither given: nothing.
    public func deleteSessions(issuer: String, subject: String?, sessionID: String?) async throws -> [[UInt8]] {
        let rows: PGRows
        switch (subject, sessionID) {
        case (let subject?, let sid?):
            rows = try await database.execute(
                """
                DELETE FROM \(table.quoted) WHERE issuer = $1 AND (sid = $2 OR (sid IS NULL AND subject = $3))
                RETURNING handle_hash, key_id, payload
                """, [.text(issuer), .text(sid), .text(subject)])
        case (nil, let sid?):
            rows = try await database.execute(
                "DELETE FROM \(table.quoted) WHERE issuer = $1 AND sid = $2 RETURNING handle_hash, key_id, payload",
                [.text(issuer), .text(sid)])
        case (let subject?, nil):
            rows = try await database.execute(
                "DELETE FROM \(table.quoted) WHERE issuer = $1 AND subject = $2 RETURNING handle_hash, key_id, payload",
                [.text(issuer), .text(subject)])
        case (nil, nil):
            return []
        }
        return try rows.values.indices.map { row in
            try sealing.open(
                try rows.bytes(row, 2, "session record"), keyID: rows.values[row][1],
                rowKey: try rows.bytes(row, 0, "session handle hash"))
        }
    }

    /// Deletes expired rows; returns how many.
    @discardableResult
    public func purgeExpired() async throws -> Int {
        try await database.execute("DELETE FROM \(table.quoted) WHERE expires_at <= now()").affected
    }

    /// SHA-256 of `handle`.
    private static func handleHash(_ handle: String) throws -> [UInt8] {
        guard !handle.isEmpty, handle.utf8.count <= 2048 else {
            throw OIDCError(.invalidDatabaseRow, "a session handle is 1-2048 bytes")
        }
        return DigestAlgorithm.sha256.hash(Array(handle.utf8))
    }
}
