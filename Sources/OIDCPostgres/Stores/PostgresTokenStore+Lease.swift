import JOSE
import OIDC
import OIDCSession

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PostgresTokenStore: RefreshLeaseBackend {
    /// ``/OIDCSession/CoordinatedTokenStore``'s single-flight refresh with a *lease* recorded in
    /// the row: no database transaction or lock spans the provider call.
    ///
    /// 1. Read the row (generation, tokens, lease). No row → `loggedOut(nil)`; tokens other
    ///    than `stale` → `alreadyRefreshed`.
    /// 2. A live lease (another caller is refreshing) → wait: woken by `NOTIFY` when the row
    ///    changes (``PostgresDatabase``'s `LISTEN` connection), when the lease expires, or by a
    ///    slow fallback re-read; then back to 1. The wait ends at the caller's deadline
    ///    (`waitTimeout`, `refresh_wait_timeout`), never earlier because the holder is slow: a
    ///    live holder renews its lease.
    /// 3. No lease, or an expired one (its holder died) → take it in one conditional `UPDATE`
    ///    (`lease_owner` = a random id of this call, `lease_expires_at`, `generation + 1`: the
    ///    fencing token) if the generation is still the one read.
    /// 4. Run `refresh` outside any transaction, renewing the lease every `lease / 6` s. Every
    ///    statement of a held lease (taking, renewing, storing, ending it) goes over the pool's
    ///    *lease connection* (``PostgresDatabase``), never the request pool: requests that wait on
    ///    a lock or a slow query cannot hold up a renewal.
    ///    The provider call's deadline: a lease confirmed by a statement sent at `t` lasts, by the
    ///    database's clock, until at least `t + lease`; the holder uses it only until
    ///    `t + lease − lease / 6` (the latest confirmation counts). At that instant, or as soon as a
    ///    renewal finds the lease taken over, `refresh` is cancelled (its task: a transport that
    ///    honours cancellation sends nothing more) and this call ends with
    ///    `refresh_lease_not_renewed` (or `refresh_lease_lost`); the last sixth of the lease is
    ///    left for the call to stop and the lease to end before another replica may take it over.
    ///    `refresh` is never started on a lease already past that instant. A result that `refresh`
    ///    returns anyway is stored under step 5's fence.
    /// 5. Store the result only if the row is still this call's: `UPDATE … WHERE generation = g AND
    ///    lease_owner = me` (compare-and-swap), which also ends the lease and notifies the waiters.
    ///    A dropped connection does not lose the result: the write is retried on a fresh connection
    ///    (the lease being still this call's) until `waitTimeout`. A holder whose lease was taken
    ///    over never writes over the newer generation: it gets `refreshedNotStored(tokens,
    ///    refresh_lease_lost)`. `.refused` deletes the row the same way (fenced), once for everyone;
    ///    a thrown error (transport, 5xx) ends the lease, leaves the tokens and is rethrown.
    ///
    /// What cannot be saved: a replica that dies (or stays cut off from the database for a whole
    /// lease, or whose provider call had already reached the provider when it was abandoned)
    /// after the provider rotated the refresh token but before any store. Its new tokens
    /// are lost with it; when its lease expires the next caller sends the stored, now spent,
    /// refresh token once. The provider refuses it (`invalid_grant`; with reuse detection it
    /// revokes the family) unless a grace period for the previous refresh token honours it
    /// (django-oauth-toolkit: `REFRESH_TOKEN_GRACE_PERIOD_SECONDS`); a refusal deletes the row
    /// once: one logout for every replica, and nobody sends that refresh token again.
    public func coordinatedRefresh(
        replacing stale: TokenResponse,
        _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult
    ) async throws
        -> CoordinatedRefreshResult
    {
        try await leasedRefresh(replacing: stale, refresh)
    }

    // MARK: RefreshLeaseBackend (the protocol is OIDCSession's, shared with OIDCRedis)

    package var isStoreClosed: Bool { database.isClosed }

    package func changeMark() -> ChangeListener.Mark { database.listener.mark(notificationPayload) }

    package func waitForChange(since mark: ChangeListener.Mark, timeout: Double) async {
        await database.listener.wait(for: notificationPayload, since: mark, timeout: timeout)
    }

    package func renewLease(generation: Int64, owner: String) async throws -> Bool {
        let rows = try await database.executeForLease(
            """
            UPDATE \(table.quoted) SET lease_expires_at = clock_timestamp() + make_interval(secs => $4::float8)
            WHERE token_key = $1 AND generation = $2::bigint AND lease_owner = $3
            """, [.text(key), .text("\(generation)"), .text(owner), .text("\(leaseSeconds)")], abandonable: true)
        return rows.affected == 1
    }

    package func storeFenced(_ tokens: TokenResponse, generation: Int64, owner: String) async throws -> Bool {
        let (keyID, sealed) = try sealing.sealRow(Self.encode(tokens), rowKey: Array(key.utf8))
        return try await fenced(
            """
            UPDATE \(table.quoted) SET generation = generation + 1, key_id = $6, payload = $7, updated_at = now(),
                lease_owner = NULL, lease_expires_at = NULL
            """, generation, owner, [keyID, .bytes(sealed)])
    }

    package func deleteFenced(generation: Int64, owner: String) async throws -> Bool {
        try await fenced("DELETE FROM \(table.quoted)", generation, owner)
    }

    package func releaseFenced(generation: Int64, owner: String) async throws -> Bool {
        try await fenced("UPDATE \(table.quoted) SET lease_owner = NULL, lease_expires_at = NULL", generation, owner)
    }

    /// Failures a retry on the same (or a reopened) connection may get past: a dropped connection, a
    /// statement or lock wait cut short (the lease connection's `lock_timeout`).
    package func isConnectionTrouble(_ error: OIDCError) -> Bool {
        error.code == .databaseUnavailable || error.code == .databaseStatementTimeout || error.code == .databaseLockTimeout
    }

    /// The row; read over the lease connection when the caller holds the lease (`onLeaseConnection`).
    package func readRow(onLeaseConnection: Bool) async throws -> LeaseRow? {
        let sql = """
            SELECT key_id, payload, generation,
                lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL AND lease_expires_at > clock_timestamp(),
                COALESCE(EXTRACT(EPOCH FROM (lease_expires_at - clock_timestamp()))::float8, 0)
            FROM \(table.quoted) WHERE token_key = $1
            """
        let rows = onLeaseConnection ? try await database.executeForLease(sql, [.text(key)]) : try await database.execute(sql, [.text(key)])
        guard let tokens = try decode(rows) else { return nil }
        guard let generation = Int64(try rows.text(0, 2, "generation")) else {
            throw OIDCError(.invalidDatabaseRow, "the row's generation is not an integer")
        }
        let remaining = Double(try rows.text(0, 4, "lease expiry")).flatMap { $0.isFinite ? $0 : nil } ?? 0
        return LeaseRow(
            tokens: tokens, generation: generation, leased: try rows.text(0, 3, "lease state") == "t",
            leaseRemaining: remaining)
    }

    /// Takes the lease if the row is still at `read` and not leased (or its lease expired); the new
    /// generation, or `nil`. Over the lease connection, so the instant it is sent is close to the one it runs.
    package func takeLease(from read: Int64, owner: String) async throws -> Int64? {
        let rows = try await database.executeForLease(
            """
            UPDATE \(table.quoted) SET generation = generation + 1, lease_owner = $2,
                lease_expires_at = clock_timestamp() + make_interval(secs => $3::float8)
            WHERE token_key = $1 AND generation = $4::bigint
                AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= clock_timestamp())
            RETURNING generation
            """, [.text(key), .text(owner), .text("\(leaseSeconds)"), .text("\(read)")])
        guard !rows.values.isEmpty else { return nil }
        guard let generation = Int64(try rows.text(0, 0, "generation")) else {
            throw OIDCError(.invalidDatabaseRow, "the row's generation is not an integer")
        }
        return generation
    }

    /// Runs `change` (an `UPDATE … SET …` or a `DELETE FROM` of this table) on this row only if
    /// it is still at `generation` under `owner`'s lease, and notifies the waiters; whether it applied.
    /// Parameters `$6…` are `extra`. Over the lease connection: a starved request pool cannot delay it.
    private func fenced(_ change: String, _ generation: Int64, _ owner: String, _ extra: [PGParameter] = []) async throws -> Bool {
        let rows = try await database.executeForLease(
            """
            WITH changed AS (
                \(change) WHERE token_key = $1 AND generation = $2::bigint AND lease_owner = $3 RETURNING token_key)
            SELECT pg_notify($4, $5) FROM changed
            """, [.text(key), .text("\(generation)"), .text(owner), .text(PGChangeFeed.channel), .text(notificationPayload)] + extra)
        return rows.values.count == 1
    }
}
