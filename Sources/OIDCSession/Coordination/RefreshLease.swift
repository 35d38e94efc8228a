import JOSE
import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A shared store's record of one user's tokens as a waiter sees it (``RefreshLeaseBackend``).
package struct LeaseRow: Sendable {
    package let tokens: TokenResponse
    package let generation: Int64
    /// Whether a lease is held and not expired (by the server's clock).
    package let leased: Bool
    /// Seconds until the lease expires (negative or 0 when none).
    package let leaseRemaining: Double

    package init(tokens: TokenResponse, generation: Int64, leased: Bool, leaseRemaining: Double) {
        self.tokens = tokens
        self.generation = generation
        self.leased = leased
        self.leaseRemaining = leaseRemaining
    }
}

/// What a shared store (PostgreSQL, Redis) provides for the cross-replica refresh lease; the protocol itself
/// (``leasedRefresh(replacing:_:)``) is written once, here, for every such store.
///
/// Every lease operation is atomic on the server (one statement, one script) and fenced by the record's
/// generation and the lease's owner; the operations of a held lease go over the store's *lease connection*.
package protocol RefreshLeaseBackend: Sendable {
    /// What a waiter takes before reading the record (a change after it wakes the wait).
    associatedtype Mark: Sendable
    /// How long a lease lasts without renewal, in seconds.
    var leaseSeconds: Double { get }
    /// The longest a caller waits for another replica's refresh, in seconds.
    var waitSeconds: Double { get }
    /// A waiter's slow fallback re-read when no change was announced, in seconds.
    var recheckSeconds: Double { get }
    /// Whether the store's connections were closed for good (no retry helps).
    var isStoreClosed: Bool { get }
    /// The current mark for this record's change announcements.
    func changeMark() -> Mark
    /// Suspends until a change was announced after `mark`, `timeout` seconds passed, or the task is cancelled.
    func waitForChange(since mark: Mark, timeout: Double) async
    /// The record; over the lease connection when the caller holds the lease.
    func readRow(onLeaseConnection: Bool) async throws -> LeaseRow?
    /// Takes the lease if the record is still at `generation` and not leased (or its lease expired), for
    /// `owner`; the new generation, or `nil`.
    func takeLease(from generation: Int64, owner: String) async throws -> Int64?
    /// Renews `owner`'s lease at `generation` (abandonable: a cancelled caller stops waiting); `false` when lost.
    func renewLease(generation: Int64, owner: String) async throws -> Bool
    /// Stores `tokens` if the record is still `owner`'s at `generation`, ending the lease and announcing the change.
    func storeFenced(_ tokens: TokenResponse, generation: Int64, owner: String) async throws -> Bool
    /// Deletes the record if it is still `owner`'s at `generation`, announcing the change.
    func deleteFenced(generation: Int64, owner: String) async throws -> Bool
    /// Ends the lease (tokens unchanged) if it is still `owner`'s at `generation`, announcing the change.
    func releaseFenced(generation: Int64, owner: String) async throws -> Bool
    /// Failures a retry on the same (or a reopened) connection may get past.
    func isConnectionTrouble(_ error: OIDCError) -> Bool
}

extension RefreshLeaseBackend {
    /// ``CoordinatedTokenStore``'s single-flight refresh with a *lease* recorded beside the tokens: no server
    /// transaction, lock or script spans the provider call.
    ///
    /// 1. Read the record (generation, tokens, lease). None → `loggedOut(nil)`; tokens other than `stale` →
    ///    `alreadyRefreshed`.
    /// 2. A live lease (another caller is refreshing) → wait: woken by the store's change announcement, when
    ///    the lease expires, or by a slow fallback re-read; then back to 1. The wait ends at the caller's
    ///    deadline (`waitTimeout`, `refresh_wait_timeout`), never earlier because the holder is slow: a live
    ///    holder renews its lease.
    /// 3. No lease, or an expired one (its holder died) → take it atomically (owner = a random id of this
    ///    call, expiry, `generation + 1`: the fencing token) if the generation is still the one read.
    /// 4. Run `refresh` outside any server-side lock, renewing the lease every `lease / 6` s on the lease
    ///    connection. A lease confirmed by a command sent at `t` lasts, by the server's clock, until at least
    ///    `t + lease`; the holder uses it only until `t + lease − lease / 6`. At that instant, or as soon as a
    ///    renewal finds the lease taken over, `refresh` is cancelled and this call ends with
    ///    `refresh_lease_not_renewed` (or `refresh_lease_lost`). `refresh` is never started on a lease
    ///    already past that instant.
    /// 5. Store the result only if the record is still this call's (compare-and-swap on generation and
    ///    owner), which also ends the lease and wakes the waiters. A dropped connection does not lose the
    ///    result: the write is retried on a fresh connection until `waitTimeout`. A holder whose lease was
    ///    taken over gets `refreshedNotStored(tokens, refresh_lease_lost)`. `.refused` deletes the record the
    ///    same way (fenced), once for everyone; a thrown error ends the lease, leaves the tokens and is rethrown.
    package func leasedRefresh(
        replacing stale: TokenResponse,
        _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult
    ) async throws -> CoordinatedRefreshResult {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: LeaseTime.duration(waitSeconds))
        let owner = UUID().uuidString
        var pause = 0.05
        while true {
            try Task.checkCancellation()
            let mark = changeMark()  // before the read: a change after it wakes the wait below
            let next: LeaseNext
            do {
                next = try await nextStep(stale: stale, owner: owner, deadline: deadline)
            } catch let error as OIDCError where isConnectionTrouble(error) {
                // The server blinked (failover, killed connection): retry until the deadline.
                guard clock.now < deadline, !isStoreClosed else { throw error }
                try await Task.sleep(for: min(LeaseTime.duration(pause), deadline - clock.now))
                pause = min(pause * 2, 2)
                continue
            }
            pause = 0.05
            switch next {
            case .done(let result): return result
            case .wait(let seconds): await waitForChange(since: mark, timeout: seconds)
            case .again: continue
            case .holding(let tokens, let generation, let confirmedAt):
                return try await refreshHoldingLease(
                    stale: stale, tokens: tokens, generation: generation, owner: owner, confirmedAt: confirmedAt, refresh)
            }
        }
    }

    /// Steps 1 to 3: read the record, then finish, wait, retry or take the lease.
    private func nextStep(stale: TokenResponse, owner: String, deadline: ContinuousClock.Instant) async throws -> LeaseNext {
        guard let row = try await readRow(onLeaseConnection: false) else { return .done(.loggedOut(nil)) }
        guard row.tokens.hasSameTokens(as: stale) else { return .done(.alreadyRefreshed(row.tokens)) }
        if row.leased {
            let left = deadline - ContinuousClock().now
            guard left > .zero else {
                throw OIDCError(.refreshWaitTimeout, "another replica's refresh of these tokens did not end within \(waitSeconds) s")
            }
            return .wait(min(LeaseTime.seconds(left), recheckSeconds, max(row.leaseRemaining, 0) + 0.05))
        }
        let sent = ContinuousClock().now
        guard let generation = try await takeLease(from: row.generation, owner: owner) else { return .again }
        return .holding(row.tokens, generation, sent)
    }

    /// Steps 4 and 5: this call holds the lease at `generation`, confirmed by the command sent at `confirmedAt`.
    private func refreshHoldingLease(
        stale: TokenResponse, tokens: TokenResponse, generation: Int64, owner: String,
        confirmedAt: ContinuousClock.Instant,
        _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult
    ) async throws -> CoordinatedRefreshResult {
        guard ContinuousClock().now < confirmedAt.advanced(by: usableLease) else {
            // Taking the lease took most of it (a stalled process): never start the provider call on it.
            _ = try? await releaseFenced(generation: generation, owner: owner)
            throw LeaseTime.leaseEnded(.notRenewed, leaseSeconds)
        }
        let (outcome, ended) = await callProvider(tokens: tokens, generation: generation, owner: owner, confirmedAt: confirmedAt, refresh)
        let step: RefreshStepResult
        switch outcome {
        case .success(let result):
            step = result
        case .failure(let error):
            _ = try? await releaseFenced(generation: generation, owner: owner)
            if let ended { throw LeaseTime.leaseEnded(ended, leaseSeconds) }  // the call failed because it was abandoned
            throw error
        }
        switch step {
        case .refreshed(let fresh):
            do {
                let written = try await fencedWithRetry(fresh) { try await storeFenced(fresh, generation: generation, owner: owner) }
                guard written else {
                    return .refreshedNotStored(
                        fresh,
                        OIDCError(
                            .refreshLeaseLost,
                            "the refresh lease was taken over (or the tokens replaced) during the provider call; the newer record was kept"))
                }
                return .refreshed(fresh)
            } catch let error as OIDCError {
                return .refreshedNotStored(fresh, error)
            } catch {
                return .refreshedNotStored(fresh, OIDCError(.refreshFailed, "storing the refreshed tokens was interrupted: \(error)"))
            }
        case .refused(let refusal):
            if try await fencedWithRetry(nil, { try await deleteFenced(generation: generation, owner: owner) }) {
                return .loggedOut(refusal)
            }
            // The lease was lost meanwhile: whatever the record holds now is someone else's doing.
            guard let row = try await readRow(onLeaseConnection: true), !row.tokens.hasSameTokens(as: stale) else {
                return .loggedOut(refusal)
            }
            return .alreadyRefreshed(row.tokens)
        }
    }

    /// The part of a confirmed lease the holder uses: all but its last sixth.
    private var usableLease: Duration { LeaseTime.duration(leaseSeconds) - LeaseTime.duration(leaseSeconds / 6) }

    /// Runs `refresh` beside ``keepLease(generation:owner:confirmedAt:)``; when the lease ends first,
    /// `refresh`'s task is cancelled and its outcome still awaited.
    private func callProvider(
        tokens: TokenResponse, generation: Int64, owner: String, confirmedAt: ContinuousClock.Instant,
        _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult
    ) async -> (Result<RefreshStepResult, any Error>, LeaseEnd?) {
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

    /// Renews the lease every `lease / 6` s while the provider call runs; returns when the lease can no longer
    /// be used: `.lost`, `.notRenewed`, or `nil` when cancelled (the provider call ended first). A failed
    /// renewal is retried after `lease / 12` s; one still running at the deadline is abandoned.
    private func keepLease(generation: Int64, owner: String, confirmedAt: ContinuousClock.Instant) async -> LeaseEnd? {
        let clock = ContinuousClock()
        let interval = LeaseTime.duration(leaseSeconds / 6)
        var usableUntil = confirmedAt.advanced(by: usableLease)
        var next = confirmedAt.advanced(by: interval)
        while true {
            do { try await Task.sleep(until: min(next, usableUntil), clock: clock) } catch { return nil }
            guard clock.now < usableUntil else { return .notRenewed }
            let sent = clock.now
            switch await renewOnce(generation: generation, owner: owner, before: usableUntil) {
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

    /// One renewal, abandoned at `deadline`.
    private func renewOnce(generation: Int64, owner: String, before deadline: ContinuousClock.Instant) async -> Renewal {
        await withTaskGroup(of: Renewal?.self) { group in
            group.addTask {
                do {
                    return try await renewLease(generation: generation, owner: owner) ? .renewed : .lost
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

    /// Runs a fenced write, retried on a fresh connection while the server is unreachable (until
    /// `waitTimeout`). When an earlier attempt may have applied before its connection dropped, the record is
    /// checked for `written` (or, for a delete, its absence) before reporting a lost lease.
    private func fencedWithRetry(_ written: TokenResponse?, _ attempt: () async throws -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: LeaseTime.duration(max(waitSeconds, leaseSeconds)))
        var pause = 0.05, interrupted = false
        while true {
            do {
                if try await attempt() { return true }
                guard interrupted else { return false }
                let row = try await readRow(onLeaseConnection: true)
                if let written { return row.map { $0.tokens.hasSameTokens(as: written) } ?? false }
                return row == nil
            } catch let error as OIDCError where isConnectionTrouble(error) {
                interrupted = true
                guard clock.now < deadline, !Task.isCancelled, !isStoreClosed else { throw error }
                try? await Task.sleep(for: LeaseTime.duration(pause))
                pause = min(pause * 2, 2)
            }
        }
    }
}

private enum LeaseNext {
    case done(CoordinatedRefreshResult)
    case wait(Double)
    case again
    /// The lease is this call's at this generation, confirmed by a command sent at that instant.
    case holding(TokenResponse, Int64, ContinuousClock.Instant)
}

/// What ended the use of a lease before the provider call did.
private enum LeaseEnd: Sendable {
    /// A renewal found the lease taken over (or the record replaced).
    case lost
    /// No renewal confirmed the lease before the end of its usable part.
    case notRenewed
}

private enum CallOutcome: Sendable {
    case step(Result<RefreshStepResult, any Error>)
    case leaseEnded(LeaseEnd?)
}

private enum Renewal: Sendable { case renewed, lost, failed, late, cancelled }

private enum LeaseTime {
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
                the refresh lease (\(leaseSeconds) s) could not be renewed in time (the store unreachable or locked); \
                the provider call was abandoned before another replica could take the lease over; the tokens are unchanged
                """)
        }
    }

    static func duration(_ seconds: Double) -> Duration {
        .milliseconds((max(0, seconds) * 1000).rounded(.up).wholeInt ?? 0)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
