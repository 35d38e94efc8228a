#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE
import OIDC
import OIDCSession

extension OIDCError.Code {
    /// A caller waited for another replica's refresh until its deadline (`waitTimeout`); the tokens
    /// are unchanged and the other replica may still finish. Retry later.
    public static let refreshWaitTimeout = OIDCError.Code(rawValue: "refresh_wait_timeout")
    /// A refresh's result was not stored because its lease had been taken over (or the row was
    /// replaced by a new login) meanwhile: fencing kept it from overwriting a newer generation.
    public static let refreshLeaseLost = OIDCError.Code(rawValue: "refresh_lease_lost")
}

extension PostgresTokenStore {
    /// ``OIDCSession/CoordinatedTokenStore``'s single-flight refresh with a *lease* recorded in
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
    /// 4. Run `refresh` outside any transaction, renewing the lease every `lease / 6` s.
    /// 5. Store the result only if the row is still this call's: `UPDATE … WHERE generation = g AND
    ///    lease_owner = me` (compare-and-swap), which also ends the lease and notifies the waiters.
    ///    A dropped connection does not lose the result: the write is retried on a fresh connection
    ///    (the lease being still this call's) until `waitTimeout`. A holder whose lease was taken
    ///    over never writes over the newer generation: it gets `refreshedNotStored(tokens,
    ///    refresh_lease_lost)`. `.refused` deletes the row the same way (fenced), once for everyone;
    ///    a thrown error (transport, 5xx) ends the lease, leaves the tokens and is rethrown.
    ///
    /// What cannot be saved: a replica that dies (or stays cut off from the database for a whole
    /// lease) after the provider rotated the refresh token but before any store. Its new tokens
    /// are lost with it; when its lease expires the next caller sends the stored, now spent,
    /// refresh token once. The provider refuses it (`invalid_grant`; with reuse detection it
    /// revokes the family) unless a grace period for the previous refresh token honours it
    /// (django-oauth-toolkit: `REFRESH_TOKEN_GRACE_PERIOD_SECONDS`); a refusal deletes the row
    /// once: one logout for every replica, and nobody sends that refresh token again.
    public func coordinatedRefresh(replacing stale: TokenResponse,
                                   _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult) async throws
        -> CoordinatedRefreshResult {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: Self.duration(waitSeconds))
        let owner = UUID().uuidString
        let listener = database.listener
        let payload = notificationPayload
        var pause = 0.05
        while true {
            try Task.checkCancellation()
            let mark = listener.mark(payload)  // before the read: a change after it wakes the wait below
            let next: Next
            do {
                next = try await nextStep(stale: stale, owner: owner, deadline: deadline)
            } catch let error as OIDCError where Self.isConnectionTrouble(error) {
                // The database blinked (failover, terminated connection): retry until the deadline.
                guard clock.now < deadline, !database.isClosed else { throw error }
                try await Task.sleep(for: min(Self.duration(pause), deadline - clock.now))
                pause = min(pause * 2, 2)
                continue
            }
            pause = 0.05
            switch next {
            case .done(let result): return result
            case .wait(let seconds): await listener.wait(for: payload, since: mark, timeout: seconds)
            case .again: continue
            case .holding(let tokens, let generation):
                return try await refreshHoldingLease(stale: stale, tokens: tokens, generation: generation, owner: owner, refresh)
            }
        }
    }

    private enum Next {
        case done(CoordinatedRefreshResult)
        case wait(Double)
        case again
        case holding(TokenResponse, Int64)
    }

    /// Steps 1 to 3: read the row, then finish, wait, retry or take the lease.
    private func nextStep(stale: TokenResponse, owner: String, deadline: ContinuousClock.Instant) async throws -> Next {
        guard let row = try await readRow() else { return .done(.loggedOut(nil)) }
        guard row.tokens.hasSameTokens(as: stale) else { return .done(.alreadyRefreshed(row.tokens)) }
        if row.leased {
            let left = deadline - ContinuousClock().now
            guard left > .zero else {
                throw OIDCError(.refreshWaitTimeout, "another replica's refresh of these tokens did not end within \(waitSeconds) s")
            }
            return .wait(min(Self.seconds(left), recheckSeconds, max(row.leaseRemaining, 0) + 0.05))
        }
        guard let generation = try await takeLease(from: row.generation, owner: owner) else { return .again }
        return .holding(row.tokens, generation)
    }

    /// Steps 4 and 5 of ``coordinatedRefresh(replacing:_:)``: this call holds the lease at `generation`.
    private func refreshHoldingLease(stale: TokenResponse, tokens: TokenResponse, generation: Int64, owner: String,
                                     _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult) async throws
        -> CoordinatedRefreshResult {
        let renewal = Task { await renewLease(generation: generation, owner: owner) }
        let step: RefreshStepResult
        do {
            step = try await refresh(tokens)
        } catch {
            renewal.cancel()
            _ = try? await fenced("UPDATE \(table.quoted) SET lease_owner = NULL, lease_expires_at = NULL", generation, owner)
            throw error
        }
        renewal.cancel()
        switch step {
        case .refreshed(let fresh):
            do {
                let (keyID, sealed) = try sealing.seal(Self.encode(fresh), rowKey: Array(key.utf8))
                let written = try await fencedWithRetry(fresh) {
                    try await fenced("""
                        UPDATE \(table.quoted) SET generation = generation + 1, key_id = $6, payload = $7, updated_at = now(),
                            lease_owner = NULL, lease_expires_at = NULL
                        """, generation, owner, [keyID, .bytes(sealed)])
                }
                guard written else {
                    return .refreshedNotStored(fresh, OIDCError(.refreshLeaseLost,
                        "the refresh lease was taken over (or the tokens replaced) during the provider call; the newer row was kept"))
                }
                return .refreshed(fresh)
            } catch let error as OIDCError {
                return .refreshedNotStored(fresh, error)
            } catch {
                return .refreshedNotStored(fresh, OIDCError(.databaseUnavailable, "storing the refreshed tokens was interrupted: \(error)"))
            }
        case .refused(let refusal):
            if try await fencedWithRetry(nil, { try await fenced("DELETE FROM \(table.quoted)", generation, owner) }) {
                return .loggedOut(refusal)
            }
            // The lease was lost meanwhile: whatever the row holds now is someone else's doing.
            guard let row = try await readRow(), !row.tokens.hasSameTokens(as: stale) else { return .loggedOut(refusal) }
            return .alreadyRefreshed(row.tokens)
        }
    }

    /// The row as a waiter sees it.
    struct LeaseRow {
        let tokens: TokenResponse
        let generation: Int64
        /// Whether a lease is held and not expired (by the database's clock).
        let leased: Bool
        /// Seconds until the lease expires (negative or 0 when none).
        let leaseRemaining: Double
    }

    func readRow() async throws -> LeaseRow? {
        let rows = try await database.execute("""
            SELECT key_id, payload, generation,
                lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL AND lease_expires_at > clock_timestamp(),
                COALESCE(EXTRACT(EPOCH FROM (lease_expires_at - clock_timestamp()))::float8, 0)
            FROM \(table.quoted) WHERE token_key = $1
            """, [.text(key)])
        guard let tokens = try decode(rows) else { return nil }
        guard let generation = Int64(try rows.text(0, 2, "generation")) else {
            throw OIDCError(.invalidDatabaseRow, "the row's generation is not an integer")
        }
        let remaining = Double(try rows.text(0, 4, "lease expiry")).flatMap { $0.isFinite ? $0 : nil } ?? 0
        return LeaseRow(tokens: tokens, generation: generation, leased: try rows.text(0, 3, "lease state") == "t",
                        leaseRemaining: remaining)
    }

    /// Takes the lease if the row is still at `read` and not leased (or its lease expired); the new generation, or `nil`.
    private func takeLease(from read: Int64, owner: String) async throws -> Int64? {
        let rows = try await database.execute("""
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

    /// Extends the lease every `lease / 6` seconds until cancelled or lost; a failed renewal
    /// (connection trouble) is retried at the next tick on a fresh connection.
    private func renewLease(generation: Int64, owner: String) async {
        while true {
            do { try await Task.sleep(for: Self.duration(leaseSeconds / 6)) } catch { return }
            do {
                let rows = try await database.execute("""
                    UPDATE \(table.quoted) SET lease_expires_at = clock_timestamp() + make_interval(secs => $4::float8)
                    WHERE token_key = $1 AND generation = $2::bigint AND lease_owner = $3
                    """, [.text(key), .text("\(generation)"), .text(owner), .text("\(leaseSeconds)")])
                if rows.affected == 0 { return }  // taken over: the fenced write will be refused
            } catch {
                continue
            }
        }
    }

    /// Runs `change` (an `UPDATE … SET …` or a `DELETE FROM` of this table) on this row only if
    /// it is still at `generation` under `owner`'s lease, and notifies the waiters; whether it applied.
    /// Parameters `$6…` are `extra`.
    private func fenced(_ change: String, _ generation: Int64, _ owner: String, _ extra: [PGParameter] = []) async throws -> Bool {
        let rows = try await database.execute("""
            WITH changed AS (
                \(change) WHERE token_key = $1 AND generation = $2::bigint AND lease_owner = $3 RETURNING token_key)
            SELECT pg_notify($4, $5) FROM changed
            """, [.text(key), .text("\(generation)"), .text(owner), .text(PGListener.channel), .text(notificationPayload)] + extra)
        return rows.values.count == 1
    }

    /// Runs a fenced write, retried on a fresh connection while the database is unreachable
    /// (until `waitTimeout`). When an earlier attempt may have committed before its connection
    /// dropped, the row is checked for `written` (or, for a delete, its absence) before reporting a lost lease.
    private func fencedWithRetry(_ written: TokenResponse?, _ attempt: () async throws -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: Self.duration(max(waitSeconds, leaseSeconds)))
        var pause = 0.05, interrupted = false
        while true {
            do {
                if try await attempt() { return true }
                guard interrupted else { return false }
                let row = try await readRow()
                if let written { return row.map { $0.tokens.hasSameTokens(as: written) } ?? false }
                return row == nil
            } catch let error as OIDCError where Self.isConnectionTrouble(error) {
                interrupted = true
                guard clock.now < deadline, !Task.isCancelled, !database.isClosed else { throw error }
                try? await Task.sleep(for: Self.duration(pause))
                pause = min(pause * 2, 2)
            }
        }
    }

    private static func isConnectionTrouble(_ error: OIDCError) -> Bool {
        error.code == .databaseUnavailable || error.code == .databaseStatementTimeout
    }

    private static func duration(_ seconds: Double) -> Duration {
        .milliseconds((max(0, seconds) * 1000).rounded(.up).wholeInt ?? 0)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
