import JOSE
import OIDC

/// Every error code of `OIDCPostgres` (the PostgreSQL stores), in one place, each with the category an application
/// branches on (``/OIDCCore/OIDCError/Category``). The strings are stable: they are the API.
extension OIDCError.Code {
    // MARK: unavailable

    /// PostgreSQL could not be reached (connect failed, or the connection dropped mid-statement).
    public static let databaseUnavailable = OIDCError.Code("database_unavailable", .unavailable)
    /// A lock was not granted within the lock timeout (SQLSTATE 55P03).
    public static let databaseLockTimeout = OIDCError.Code("database_lock_timeout", .unavailable)
    /// A statement ran longer than the connection's `statement_timeout` (SQLSTATE 57014).
    public static let databaseStatementTimeout = OIDCError.Code("database_statement_timeout", .unavailable)
    /// A caller waited for another replica's refresh until its deadline (`waitTimeout`); the tokens
    /// are unchanged and the other replica may still finish. Retry later.
    public static let refreshWaitTimeout = OIDCError.Code("refresh_wait_timeout", .unavailable)
    /// A refresh's result was not stored because its lease had been taken over (or the row was
    /// replaced by a new login) meanwhile: fencing kept it from overwriting a newer generation.
    public static let refreshLeaseLost = OIDCError.Code("refresh_lease_lost", .unavailable)
    /// The refresh lease could not be renewed before the end of its usable part (the database
    /// unreachable or the row locked), so the provider call was abandoned (cancelled) before another
    /// replica could take the lease over. The tokens are unchanged; retry later.
    public static let refreshLeaseNotRenewed = OIDCError.Code("refresh_lease_not_renewed", .unavailable)

    // MARK: configuration

    /// An encryption key or key set is unusable (wrong length, empty or duplicate id).
    public static let invalidEncryptionKey = OIDCError.Code("invalid_encryption_key", .configuration)
    /// A configured table name is not a plain SQL identifier.
    public static let invalidTableName = OIDCError.Code("invalid_table_name", .configuration)

    // MARK: storage

    /// PostgreSQL refused a statement; the reason carries its SQLSTATE and primary message.
    public static let databaseError = OIDCError.Code("database_error", .storage)
    /// A row read from the database is not in the form this module writes.
    public static let invalidDatabaseRow = OIDCError.Code("invalid_database_row", .storage)
    /// A stored row could not be decrypted: unknown key id, wrong key, or altered ciphertext.
    public static let decryptionFailed = OIDCError.Code(JOSEError.Code.decryptionFailed, .storage)
}
