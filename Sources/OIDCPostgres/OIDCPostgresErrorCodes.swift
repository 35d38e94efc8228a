import JOSE
import OIDC

/// Every error code of `OIDCPostgres` (the PostgreSQL stores), in one place (the lease and sealing codes its stores
/// share with `OIDCRedis` are `OIDCSession`'s), each with the category an application
/// branches on (``/OIDCCore/OIDCError/Category``). The strings are stable: they are the API.
extension OIDCError.Code {
    // MARK: unavailable

    /// PostgreSQL could not be reached (connect failed, or the connection dropped mid-statement).
    public static let databaseUnavailable = OIDCError.Code("database_unavailable", .unavailable)
    /// A lock was not granted within the lock timeout (SQLSTATE 55P03).
    public static let databaseLockTimeout = OIDCError.Code("database_lock_timeout", .unavailable)
    /// A statement ran longer than the connection's `statement_timeout` (SQLSTATE 57014).
    public static let databaseStatementTimeout = OIDCError.Code("database_statement_timeout", .unavailable)

    // MARK: configuration

    /// A configured table name is not a plain SQL identifier.
    public static let invalidTableName = OIDCError.Code("invalid_table_name", .configuration)

    // MARK: storage

    /// PostgreSQL refused a statement; the reason carries its SQLSTATE and primary message.
    public static let databaseError = OIDCError.Code("database_error", .storage)
    /// A row read from the database is not in the form this module writes.
    public static let invalidDatabaseRow = OIDCError.Code("invalid_database_row", .storage)
}
