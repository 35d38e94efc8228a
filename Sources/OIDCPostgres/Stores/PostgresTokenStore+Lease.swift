import JOSE
import OIDC
import OIDCSession

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PostgresTokenStore {
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
            case .holding(let tokens, let generation, let confirmedAt):
                return try await refreshHoldingLease(
                    stale: stale, tokens: tokens, generation: generation, owner: owner,
                    confirmedAt: confirmedAt, refresh)
            }
        }
    }

    private enum Next {
        case done(CoordinatedRefreshResult)
        case wait(Double)
        case again
        /// The lease is this call's at this generation, confirmed by a statement sent at that instant.
        case holding(TokenResponse, Int64, ContinuousClock.Instant)
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
        let sent = ContinuousClock().now
        guard let generation = try await takeLease(from: row.generation, owner: owner) else { return .again }
        return .holding(row.tokens, generation, sent)
    }

    /// Steps 4 and 5 of ``coordinatedRefresh(replacing:_:)``: this call holds the lease at `generation`,
    /// confirmed by the statement sent at `confirmedAt`.
    private func refreshHoldingLease(
        stale: TokenResponse, tokens: TokenResponse, generation: Int64, owner: String,
        confirmedAt: ContinuousClock.Instant,
        _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult
    ) async throws
        -> CoordinatedRefreshResult
    {
        let release = "UPDATE \(table.quoted) SET lease_owner = NULL, lease_expires_at = NULL"
        guard ContinuousClock().now < confirmedAt.advanced(by: usableLease) else {
            // Taking the lease took most of it (a stalled process): never start the provider call on it.
            _ = try? await fenced(release, generation, owner)
            throw Self.leaseEnded(.notRenewed, leaseSeconds)
        }
        let (outcome, ended) = await callProvider(
            tokens: tokens, generation: generation, owner: owner,
            confirmedAt: confirmedAt, refresh)
        let step: RefreshStepResult
        switch outcome {
        case .success(let result):
            step = result
        case .failure(let error):
            _ = try? await fenced(release, generation, owner)
            if let ended { throw Self.leaseEnded(ended, leaseSeconds) }  // the call failed because it was abandoned
            throw error
        }
        switch step {
        case .refreshed(let fresh):
            do {
                let (keyID, sealed) = try sealing.seal(Self.encode(fresh), rowKey: Array(key.utf8))
                let written = try await fencedWithRetry(fresh) {
                    try await fenced(
                        """
                        UPDATE \(table.quoted) SET generation = generation + 1, key_id = $6, payload = $7, updated_at = now(),
                            lease_owner = NULL, lease_expires_at = NULL
                        """, generation, owner, [keyID, .bytes(sealed)])
                }
                guard written else {
                    return .refreshedNotStored(
                        fresh,
                        OIDCError(
                            .refreshLeaseLost,
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
            guard let row = try await readRow(onLeaseConnection: true), !row.tokens.hasSameTokens(as: stale) else {
                return .loggedOut(refusal)
            }
            return .alreadyRefreshed(row.tokens)
        }
    }

    /// What ended the use of a lease before the provider call did.
    enum LeaseEnd: Sendable {
        /// A renewal found the lease taken over (or the row replaced).
        case lost
        /// No renewal confirmed the lease before the end of its usable part.
        case notRenewed
    }

    static func leaseEnded(_ end: LeaseEnd, _ leaseSeconds: Double) -> OIDCError {
        switch end {
        case .lost:
            OIDCError(
                .refreshLeaseLost,
                "the refresh lease was taken over (or the tokens replaced) during the provider call; the call was abandoned")
        case .notRenewed:
            OIDCError(
                .refreshLeaseNotRenewed,
                """
                the refresh lease (\(leaseSeconds) s) could not be renewed in time (database unreachable or locked); \
                the provider call was abandoned before another replica could take the lease over; the tokens are unchanged
                """)
        }
    }

    /// The part of a confirmed lease the holder uses: all but its last sixth.
    private var usableLease: Duration { Self.duration(leaseSeconds) - Self.duration(leaseSeconds / 6) }

    private enum CallOutcome: Sendable {
        case step(Result<RefreshStepResult, any Error>)
        case leaseEnded(LeaseEnd?)
    }

    /// Runs `refresh` beside ``keepLease(generation:owner:confirmedAt:)``; when the lease ends first,
    /// `refresh`'s task is cancelled and its outcome still awaited. Returns that outcome and what
    /// ended the lease, if anything did.
    private func callProvider(
        tokens: TokenResponse, generation: Int64, owner: String, confirmedAt: ContinuousClock.Instant,
        _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult
    ) async
        -> (Result<RefreshStepResult, any Error>, LeaseEnd?)
    {
        // The group awaits `refresh` before returning, so it never outlives this call.
        await withoutActuallyEscaping(refresh) { call in
            await withTaskGroup(of: CallOutcome.self) { group in
                group.addTask {
                    do { return .step(.success(try await call(tokens))) } catch { return .step(.failure(error)) }
                }
                group.addTask { .leaseEnded(await keepLease(generation: generation, owner: owner, confirmedAt: confirmedAt)) }
                var ended: LeaseEnd?
                while let outcome = await group.next() {
                    switch outcome {
                    case .step(let result):
                        group.cancelAll()
                        return (result, ended)
                    case .leaseEnded(let end):
                        guard let end else { continue }
                        ended = end
                        group.cancelAll()  // abandon the provider call
                    }
                }
                return (.failure(CancellationError()), ended)
            }
        }
    }

    /// Renews the lease on the lease connection every `lease / 6` s while the provider call runs;
    /// returns when the lease can no longer be used: `.lost` (a renewal found it taken over),
    /// `.notRenewed` (no renewal confirmed it before the end of its usable part, `lease / 6` before
    /// the earliest instant it may expire), or `nil` when cancelled (the provider call ended first).
    /// A renewal that fails (connection trouble, a lock held past `lock_timeout`) is retried after
    /// `lease / 12` s; one still running at the deadline is abandoned (it may still land: it only
    /// extends this call's own lease, which is ended after it on the same connection).
    private func keepLease(generation: Int64, owner: String, confirmedAt: ContinuousClock.Instant) async -> LeaseEnd? {
        let clock = ContinuousClock()
        let interval = Self.duration(leaseSeconds / 6)
        var usableUntil = confirmedAt.advanced(by: usableLease)
        var next = confirmedAt.advanced(by: interval)
        while true {
            do { try await Task.sleep(until: min(next, usableUntil), clock: clock) } catch { return nil }
            guard clock.now < usableUntil else { return .notRenewed }
            let sent = clock.now
            switch await renewLease(generation: generation, owner: owner, before: usableUntil) {
            case .renewed:
                usableUntil = sent.advanced(by: usableLease)
                next = sent.advanced(by: interval)
            case .lost: return .lost
            case .late: return .notRenewed
            case .failed: next = clock.now.advanced(by: interval / 2)
            case .cancelled: return nil
            }
        }
    }

    private enum Renewal: Sendable { case renewed, lost, failed, late, cancelled }

    /// One renewal on the lease connection, abandoned at `deadline`.
    private func renewLease(generation: Int64, owner: String, before deadline: ContinuousClock.Instant) async -> Renewal {
        await withTaskGroup(of: Renewal?.self) { group in
            group.addTask {
                do {
                    let rows = try await database.executeForLease(
                        """
                        UPDATE \(table.quoted) SET lease_expires_at = clock_timestamp() + make_interval(secs => $4::float8)
                        WHERE token_key = $1 AND generation = $2::bigint AND lease_owner = $3
                        """, [.text(key), .text("\(generation)"), .text(owner), .text("\(leaseSeconds)")], abandonable: true)
                    return rows.affected == 1 ? .renewed : .lost
                } catch is CancellationError {
                    return .cancelled
                } catch {
                    return .failed
                }
            }
            group.addTask {
                do { try await Task.sleep(until: deadline, clock: ContinuousClock()) } catch { return nil }
                return .late
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .cancelled
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

    /// The row; read over the lease connection when the caller holds the lease (`onLeaseConnection`).
    func readRow(onLeaseConnection: Bool = false) async throws -> LeaseRow? {
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
    private func takeLease(from read: Int64, owner: String) async throws -> Int64? {
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
                let row = try await readRow(onLeaseConnection: true)
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

    /// Failures a retry on the same (or a reopened) connection may get past: a dropped connection, a
    /// statement or lock wait cut short (the lease connection's `lock_timeout`).
    private static func isConnectionTrouble(_ error: OIDCError) -> Bool {
        error.code == .databaseUnavailable || error.code == .databaseStatementTimeout || error.code == .databaseLockTimeout
    }

    private static func duration(_ seconds: Double) -> Duration {
        .milliseconds((max(0, seconds) * 1000).rounded(.up).wholeInt ?? 0)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
