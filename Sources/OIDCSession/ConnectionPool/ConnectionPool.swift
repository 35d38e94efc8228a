import JOSE
import OIDC

/// A bounded pool of ``ConnectionWorker``s opened on demand, plus one dedicated *lease* worker.
///
/// - At most `maximumConnections` pooled workers exist; a caller finding none idle and the pool full waits,
///   suspended, for the next release (first come, first served).
/// - The lease worker carries every call of a held refresh lease, so requests queued on a starved pool cannot
///   hold up a renewal; it is opened on first use and not counted in the pool's size.
/// - After ``close()`` every waiter and every later call fails with the error `closed` makes, and a worker
///   released afterwards is stopped.
package final class ConnectionPool<Connection: BlockingConnection>: Sendable {
    private struct State {
        var idle: [ConnectionWorker<Connection>] = []
        var created = 0
        var waiters: [CheckedContinuation<ConnectionWorker<Connection>, any Error>] = []
        var closed = false
        var leaseWorker: ConnectionWorker<Connection>?
    }

    private enum Next {
        case worker(ConnectionWorker<Connection>)
        case create, wait, closed
    }

    private let maximumConnections: Int
    private let state = Locked(State())
    private let makeWorker: @Sendable (_ forLease: Bool) -> ConnectionWorker<Connection>
    private let closedError: @Sendable () -> OIDCError

    /// A pool of at most `maximumConnections` workers made by `makeWorker` (`true` for the lease worker);
    /// `closedError` is the error a closed pool answers.
    package init(
        maximumConnections: Int, closedError: @escaping @Sendable () -> OIDCError,
        makeWorker: @escaping @Sendable (_ forLease: Bool) -> ConnectionWorker<Connection>
    ) {
        self.maximumConnections = maximumConnections
        self.closedError = closedError
        self.makeWorker = makeWorker
    }

    /// Whether ``close()`` was called (a closed pool's error is final: no retry helps).
    package var isClosed: Bool { state.withLock { $0.closed } }

    /// Stops every idle worker and the lease worker, and fails every waiter. Workers in use stop when released.
    package func close() {
        let (idle, waiters) = state.withLock { state -> ([ConnectionWorker<Connection>], [CheckedContinuation<ConnectionWorker<Connection>, any Error>]) in
            state.closed = true
            defer { state.idle = []; state.waiters = []; state.leaseWorker = nil }
            return (state.idle + (state.leaseWorker.map { [$0] } ?? []), state.waiters)
        }
        for worker in idle { worker.stop() }
        for waiter in waiters { waiter.resume(throwing: closedError()) }
    }

    /// The lease worker, started on first use.
    package func leaseWorker() throws -> ConnectionWorker<Connection> {
        let closedError = self.closedError
        let makeWorker = self.makeWorker
        return try state.withLock { state in
            if state.closed { throw closedError() }
            if let worker = state.leaseWorker { return worker }
            let worker = makeWorker(true)
            state.leaseWorker = worker
            return worker
        }
    }

    /// An idle worker, a new one while the pool is below its size, or the next one released.
    package func acquire() async throws -> ConnectionWorker<Connection> {
        let next = state.withLock { state -> Next in
            if state.closed { return .closed }
            if let worker = state.idle.popLast() { return .worker(worker) }
            if state.created < maximumConnections {
                state.created += 1
                return .create
            }
            return .wait
        }
        switch next {
        case .worker(let worker): return worker
        case .create: return makeWorker(false)
        case .closed: throw closedError()
        case .wait:
            return try await withCheckedThrowingContinuation { continuation in
                let resumeNow = state.withLock { state -> ConnectionWorker<Connection>?? in
                    if state.closed { return .some(nil) }
                    if let worker = state.idle.popLast() { return .some(worker) }
                    state.waiters.append(continuation)
                    return .none
                }
                switch resumeNow {
                case .none: break
                case .some(.none): continuation.resume(throwing: closedError())
                case .some(.some(let worker)): continuation.resume(returning: worker)
                }
            }
        }
    }

    /// Hands `worker` to the first waiter, or back to the idle list; stops it when the pool was closed.
    package func release(_ worker: ConnectionWorker<Connection>) {
        let waiter = state.withLock { state -> CheckedContinuation<ConnectionWorker<Connection>, any Error>?? in
            if state.closed { return .none }
            if !state.waiters.isEmpty { return .some(state.waiters.removeFirst()) }
            state.idle.append(worker)
            return .some(nil)
        }
        switch waiter {
        case .none: worker.stop()
        case .some(.none): break
        case .some(.some(let continuation)): continuation.resume(returning: worker)
        }
    }
}
