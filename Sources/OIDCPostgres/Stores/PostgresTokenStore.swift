import JOSE
import OIDC
import OIDCSession

/// One user's tokens in a PostgreSQL table shared by every replica, with a
/// cross-replica single-flight refresh (``/OIDCSession/CoordinatedTokenStore``).
///
/// - Row: `token_key` (the caller's key for the user), `generation` (incremented on
///   every write and every lease taken: the fencing token), `key_id` (the ``/OIDCSession/TokenEncryptionKey``
///   id, `NULL` when stored in plain text), `payload` (the ``/OIDC/TokenResponse`` stored JSON,
///   sealed with AES-256-GCM when ``/OIDCSession/TokenEncryption`` is given: a database dump is then not a
///   login), `lease_owner` and `lease_expires_at` (who is refreshing the row, until when).
/// - ``coordinatedRefresh(replacing:_:)`` takes a *lease* recorded in the row, never a lock
///   held across the provider call: no transaction and no lock spans a network call. See there
///   for the protocol, what survives a dropped connection or a dead replica, and the one
///   window that remains.
/// - A session keeps the tokens in memory: the store is read when a session is
///   resumed and written on login and refresh, never on an ordinary request.
/// - A row that is not in the form written here fails with a typed error, never a crash.
public struct PostgresTokenStore: CoordinatedTokenStore, CustomStringConvertible {
    /// The pool the store uses.
    package let database: PostgresDatabase
    /// The key of this user's row.
    public let key: String
    /// The table (default `oidc_tokens`).
    public let table: TableName
    package let sealing: RowSealing
    /// How long a refresh lease lasts without renewal, in seconds.
    package let leaseSeconds: Double
    /// The longest a caller waits for another replica's refresh, in seconds.
    package let waitSeconds: Double
    /// A waiter's slow fallback re-read when no notification came, in seconds (tests lengthen it).
    package var recheckSeconds: Double = 5

    /// The store of `key`'s tokens in `table`.
    /// - Parameters:
    ///   - database: the connection pool.
    ///   - key: this user's row key (1 to 512 bytes, no NUL).
    ///   - table: the table (default `oidc_tokens`).
    ///   - encryption: seal the tokens at rest (recommended); `nil` stores them as plain JSON.
    ///   - lease: how long a refresh lease lasts without renewal, in seconds (default 30, 1–3600).
    ///     The holder renews it every `lease / 6` seconds while its provider call runs, on the
    ///     pool's lease connection (a starved request pool does not hold it up), so a live holder
    ///     keeps it however slow the provider is. A holder that cannot renew it (the database
    ///     unreachable or the row locked; or its own threads stalled: the renewal is a task) for
    ///     `lease − lease / 6` seconds since its last confirmation cancels its provider call and
    ///     fails with `refresh_lease_not_renewed`, before the lease can pass to the next waiter.
    ///   - waitTimeout: the longest a caller waits for another replica's refresh, in seconds
    ///     (default 120; at least 0.001): its request's deadline. A holder that keeps renewing
    ///     its lease is waited for up to this; then `refresh_wait_timeout`.
    /// - Throws: `invalid_database_row` for an empty key, longer than 512 bytes, or containing NUL;
    ///   `database_error` for a lease or wait out of range.
    public init(
        database: PostgresDatabase, key: String, table: TableName? = nil, encryption: TokenEncryption? = nil,
        lease: Double = 30, waitTimeout: Double = 120
    ) throws {
        guard (1...512).contains(key.utf8.count), !key.utf8.contains(0) else {
            throw OIDCError(.invalidDatabaseRow, "a token key is 1-512 bytes without NUL")
        }
        guard lease.isFinite, lease >= 1, lease <= 3600 else {
            throw OIDCError(.databaseError, "lease must be between 1 and 3600 seconds")
        }
        guard waitTimeout.isFinite, waitTimeout >= 0.001, waitTimeout <= 86_400 else {
            throw OIDCError(.databaseError, "waitTimeout must be between 0.001 and 86400 seconds")
        }
        self.database = database
        self.key = key
        self.table = try table ?? TableName("oidc_tokens")
        sealing = RowSealing(encryption: encryption, purpose: "oidc-token-store")
        leaseSeconds = lease
        waitSeconds = waitTimeout
    }

    /// `PostgresTokenStore(table: NAME)`: no key, no tokens.
    public var description: String { "PostgresTokenStore(table: \(table))" }

    /// Creates the table if it does not exist, and adds the lease columns to a table made by an
    /// earlier version (safe to run from every replica at once).
    public func createTable() async throws {
        try await database.createSchema([
            """
            CREATE TABLE IF NOT EXISTS \(table.quoted) (
                token_key text PRIMARY KEY,
                generation bigint NOT NULL DEFAULT 1,
                key_id text,
                payload bytea NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now(),
                lease_owner text,
                lease_expires_at timestamptz
            )
            """,
            "ALTER TABLE \(table.quoted) ADD COLUMN IF NOT EXISTS lease_owner text",
            "ALTER TABLE \(table.quoted) ADD COLUMN IF NOT EXISTS lease_expires_at timestamptz",
        ])
    }

    /// Saves the tokens (insert or replace), incrementing the row's generation. A refresh lease
    /// on the row ends with it: its holder's result is then not stored over these tokens.
    public func save(_ tokens: TokenResponse) async throws {
        let (keyID, payload) = try sealing.sealRow(Self.encode(tokens), rowKey: Array(key.utf8))
        _ = try await database.execute(
            """
            WITH saved AS (
                INSERT INTO \(table.quoted) AS t (token_key, key_id, payload) VALUES ($1, $2, $3)
                ON CONFLICT (token_key) DO UPDATE SET generation = t.generation + 1, key_id = EXCLUDED.key_id,
                    payload = EXCLUDED.payload, updated_at = now(), lease_owner = NULL, lease_expires_at = NULL
                RETURNING token_key)
            SELECT pg_notify($4, $5) FROM saved
            """, [.text(key), keyID, .bytes(payload), .text(PGChangeFeed.channel), .text(notificationPayload)])
    }

    /// The stored tokens, or `nil`.
    public func load() async throws -> TokenResponse? {
        let rows = try await database.execute("SELECT key_id, payload FROM \(table.quoted) WHERE token_key = $1", [.text(key)])
        return try decode(rows)
    }

    /// Deletes the row (waiters on other replicas are woken and see the user logged out).
    public func clear() async throws {
        _ = try await database.execute(
            """
            WITH gone AS (DELETE FROM \(table.quoted) WHERE token_key = $1 RETURNING token_key) SELECT pg_notify($2, $3) FROM gone
            """, [.text(key), .text(PGChangeFeed.channel), .text(notificationPayload)])
    }

    /// What a change of this row is announced as on ``PGChangeFeed/channel``: the table and the key.
    var notificationPayload: String { "\(table.name) \(key)" }

    static func encode(_ tokens: TokenResponse) -> [UInt8] {
        Array(tokens.jsonObject.jsonString(sortedKeys: true).utf8)
    }

    func decode(_ rows: PGRows) throws -> TokenResponse? {
        guard !rows.values.isEmpty else { return nil }
        let keyID = rows.values[0].first ?? nil
        let plaintext = try sealing.open(try rows.bytes(0, 1, "token payload"), keyID: keyID, rowKey: Array(key.utf8))
        do {
            return try TokenResponse(storedJSON: try JSONParser.parseObject(plaintext, what: "the stored tokens"))
        } catch let error as JOSEError {
            throw OIDCError(.invalidDatabaseRow, "the stored tokens are not valid JSON", joseError: error)
        } catch let error as OIDCError {
            throw OIDCError(.invalidDatabaseRow, "the stored tokens are not a token set: \(error.reason)")
        }
    }
}
