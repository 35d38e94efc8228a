import JOSE
import OIDC

/// Every error code of `OIDCRedis` (the Redis and Valkey stores), in one place, each with the category an application
/// branches on (``/OIDCCore/OIDCError/Category``). The lease and sealing codes its stores share with `OIDCPostgres`
/// (`refresh_wait_timeout`, `refresh_lease_lost`, `refresh_lease_not_renewed`, `invalid_encryption_key`,
/// `decryption_failed`) are `OIDCSession`'s. The strings are stable: they are the API.
extension OIDCError.Code {
    // MARK: unavailable

    /// The Redis or Valkey server could not be reached: the connection (or its TLS handshake, or its
    /// `AUTH`/`SELECT`) failed, or it dropped mid-command.
    public static let redisUnavailable = OIDCError.Code("redis_unavailable", .unavailable)
    /// The server did not answer a command (or a connection attempt) within its timeout.
    public static let redisTimeout = OIDCError.Code("redis_timeout", .unavailable)

    // MARK: configuration

    /// A `redis://` or `rediss://` URL (or a pool setting) is not usable: scheme, host, port, database
    /// number, a timeout or the pool size out of range. The reason never contains the password.
    public static let invalidRedisURL = OIDCError.Code("invalid_redis_url", .configuration)
    /// A store's key namespace is not 1-128 characters of `A-Z a-z 0-9 : _ . -`.
    public static let invalidRedisNamespace = OIDCError.Code("invalid_redis_namespace", .configuration)

    // MARK: storage

    /// The server answered a command with an error (`-ERR …`, `-NOSCRIPT`, `-WRONGPASS` …); the reason carries its first word.
    public static let redisError = OIDCError.Code("redis_error", .storage)
    /// An answer or a stored value is not in the form this module writes (malformed RESP, an unexpected
    /// type, a value past a limit).
    public static let invalidRedisValue = OIDCError.Code("invalid_redis_value", .storage)
}
