import Foundation
import JOSE

/// A connection whose calls block (a libpq connection, a Redis socket): only a ``ConnectionWorker``'s thread uses it.
package protocol BlockingConnection: AnyObject, SendableMetatype {
    /// Closes the connection; a later call reopens it or fails.
    func close()
}

/// A thread that owns one blocking connection and runs jobs on it in order.
///
/// These threads are the only ones that make the connection's blocking calls, so Swift's cooperative pool never
/// waits on a server: a waiting caller is a suspended task, not a blocked thread. `OIDCPostgres` and `OIDCRedis`
/// both run their connections on it.
package final class ConnectionWorker<Connection: BlockingConnection>: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [(Connection) -> Void] = []
    private var stopping = false
    private let connection: Connection

    /// Starts the thread, named `name` (as seen by debuggers and `top -H`), that owns `connection`.
    package init(connection: Connection, name: String) {
        self.connection = connection
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.start()
    }

    /// Runs `body` with the connection on this worker's thread.
    package func run<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { connection in
                do { continuation.resume(returning: try body(connection)) } catch { continuation.resume(throwing: error) }
            }
        }
    }

    /// Like ``run(_:)``, but a caller whose task is cancelled stops waiting at once (`CancellationError`) while
    /// the job still runs to its end on this thread, before any later job: for a call whose answer may be
    /// abandoned (a lease renewal racing its deadline).
    package func runAbandonable<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let waiting = Locked<CheckedContinuation<T, any Error>?>(nil)
        let take: @Sendable () -> CheckedContinuation<T, any Error>? = {
            waiting.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiting.withLock { $0 = continuation }
                submit { connection in
                    let result = Result { try body(connection) }
                    take()?.resume(with: result)
                }
                if Task.isCancelled { take()?.resume(throwing: CancellationError()) }  // cancelled before the handler could see it
            }
        } onCancel: {
            take()?.resume(throwing: CancellationError())
        }
    }

    /// Finishes the queued jobs, closes the connection and ends the thread.
    package func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func submit(_ job: @escaping (Connection) -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                connection.close()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job(connection)
        }
    }
}
