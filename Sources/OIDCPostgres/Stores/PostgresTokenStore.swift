import JOSE
import OIDC
import OIDCSession

/// One user's tokens in a PostgreSQL table shared by every replica, with a
/// cross-replica single-flight refresh (``OIDCSession/CoordinatedTokenStore``).
///
/// - Row: `token_key` (the caller's key for the user), `generation` (incremented on
///   every write), `key_id` (the ``TokenEncryptionKey`` id, `NULL` when stored in
///   plain text), `payload` (the ``OIDC/TokenResponse`` stored JSON, sealed with
///   AES-256-GCM when ``TokenEncryption`` is given: a database dump is then not a login).
/// - ``coordinatedRefresh(replacing:_:)`` runs in a transaction holding the row's lock
///   (`SELECT … FOR UPDATE`): exactly one caller among all replicas refreshes a given
///   token set; the others wait, then read its result. A replica that dies holding
///   the lock loses its connection, PostgreSQL rolls its transaction back, and the
///   next waiter refreshes with the tokens still stored. Waiting is bounded by
///   `lockTimeout` (`database_lock_timeout`).
/// - A session keeps the tokens in memory: the store is read when a session is
///   resumed and written on login and refresh, never on an ordinary request.
/// - A row that is not in the form written here fails with a typed error, never a crash.
public struct PostgresTokenStore: CoordinatedTokenStore, CustomStringConvertible {
    /// The pool the store uses.
    public let database: PostgresDatabase
    /// The key of this user's row.
    public let key: String
    /// The table (default `oidc_tokens`).
    public let table: TableName
    private let sealing: RowSealing
    private let lockTimeoutMilliseconds: Int

    /// The store of `key`'s tokens in `table`.
    /// - Parameters:
    ///   - database: the connection pool.
    ///   - key: this user's row key (1 to 512 bytes, no NUL).
    ///   - table: the table (default `oidc_tokens`).
    ///   - encryption: seal the tokens at rest (recommended); `nil` stores them as plain JSON.
    ///   - lockTimeout: longest wait for another replica's refresh, in seconds (default 30).
    /// - Throws: `invalid_database_row` for an empty key, longer than 512 bytes, or containing NUL.
    public init(database: PostgresDatabase, key: String, table: TableName? = nil, encryption: TokenEncryption? = nil,
                lockTimeout: Double = 30) throws {
        guard (1...512).contains(key.utf8.count), !key.utf8.contains(0) else {
            throw OIDCError(.invalidDatabaseRow, "a token key is 1-512 bytes without NUL")
        }
        guard lockTimeout.isFinite, lockTimeout >= 0.001, lockTimeout <= 86_400 else {
            throw OIDCError(.databaseError, "lockTimeout must be between 0.001 and 86400 seconds")
        }
        self.database = database
        self.key = key
        self.table = try table ?? TableName("oidc_tokens")
        sealing = RowSealing(encryption: encryption, purpose: "oidc-token-store")
        lockTimeoutMilliseconds = Int(lockTimeout * 1000)
    }

    /// `PostgresTokenStore(table: NAME)`: no key, no tokens.
    public var description: String { "PostgresTokenStore(table: \(table))" }

    /// Creates the table if it does not exist (safe to run from every replica at once).
    public func createTable() async throws {
        let sql = """
            CREATE TABLE IF NOT EXISTS \(table.quoted) (
                token_key text PRIMARY KEY,
                generation bigint NOT NULL DEFAULT 1,
                key_id text,
                payload bytea NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now()
            )
            """
        try await database.createSchema([sql])
    }

    /// Saves the tokens (insert or replace), incrementing the row's generation.
    public func save(_ tokens: TokenResponse) async throws {
        let (keyID, payload) = try sealing.seal(Self.encode(tokens), rowKey: Array(key.utf8))
        _ = try await database.execute("""
            INSERT INTO \(table.quoted) AS t (token_key, key_id, payload) VALUES ($1, $2, $3)
            ON CONFLICT (token_key) DO UPDATE SET generation = t.generation + 1, key_id = EXCLUDED.key_id,
                payload = EXCLUDED.payload, updated_at = now()
            """, [.text(key), keyID, .bytes(payload)])
    }

    /// The stored tokens, or `nil`.
    public func load() async throws -> TokenResponse? {
        let rows = try await database.execute("SELECT key_id, payload FROM \(table.quoted) WHERE token_key = $1", [.text(key)])
        return try decode(rows)
    }

    /// Deletes the row.
    public func clear() async throws {
        _ = try await database.execute("DELETE FROM \(table.quoted) WHERE token_key = $1", [.text(key)])
    }

    /// See ``OIDCSession/CoordinatedTokenStore/coordinatedRefresh(replacing:_:)``: under the row lock.
    public func coordinatedRefresh(replacing stale: TokenResponse,
                                   _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult) async throws
        -> CoordinatedRefreshResult {
        // Tokens the provider issued are never dropped: if storing them fails, the caller still gets them.
        let issued = Locked<TokenResponse?>(nil)
        do {
            return try await refreshUnderLock(replacing: stale, refresh) { fresh in issued.withLock { $0 = fresh } }
        } catch let error as OIDCError {
            guard let fresh = issued.withLock({ $0 }) else { throw error }
            return .refreshedNotStored(fresh, error)
        }
    }

    private func refreshUnderLock(replacing stale: TokenResponse,
                                  _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult,
                                  issued: @Sendable (TokenResponse) -> Void) async throws -> CoordinatedRefreshResult {
        try await database.transaction { connection in
            _ = try await connection.execute("SELECT set_config('lock_timeout', $1, true)", [.text("\(lockTimeoutMilliseconds)ms")])
            let rows = try await connection.execute(
                "SELECT key_id, payload FROM \(table.quoted) WHERE token_key = $1 FOR UPDATE", [.text(key)])
            guard let stored = try decode(rows) else { return .loggedOut(nil) }
            guard stored.hasSameTokens(as: stale) else { return .alreadyRefreshed(stored) }
            switch try await refresh(stored) {
            case .refreshed(let fresh):
                issued(fresh)
                let (keyID, payload) = try sealing.seal(Self.encode(fresh), rowKey: Array(key.utf8))
                _ = try await connection.execute("""
                    UPDATE \(table.quoted) SET generation = generation + 1, key_id = $2, payload = $3, updated_at = now()
                    WHERE token_key = $1
                    """, [.text(key), keyID, .bytes(payload)])
                return .refreshed(fresh)
            case .refused(let error):
                _ = try await connection.execute("DELETE FROM \(table.quoted) WHERE token_key = $1", [.text(key)])
                return .loggedOut(error)
            }
        }
    }

    private static func encode(_ tokens: TokenResponse) -> [UInt8] {
        Array(tokens.jsonObject.jsonString(sortedKeys: true).utf8)
    }

    private func decode(_ rows: PGRows) throws -> TokenResponse? {
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
