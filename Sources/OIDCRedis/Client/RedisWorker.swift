import Foundation
import JOSE

/// A thread that owns one ``RedisConnection`` and runs jobs on it in order.
///
/// The connection's socket calls block (bounded by its timeouts); these threads are the only ones that
/// make them, so Swift's cooperative pool never waits on the server (a waiting caller is a suspended task).
final class RedisWorker: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [(RedisConnection) -> Void] = []
    private var stopping = false
    private let connection: RedisConnection

    init(connection: RedisConnection, name: String) {
        self.connection = connection
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.start()
    }

    /// Runs `body` with the connection on this worker's thread.
    func run<T: Sendable>(_ body: @escaping @Sendable (RedisConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { connection in
                do { continuation.resume(returning: try body(connection)) } catch { continuation.resume(throwing: error) }
            }
        }
    }

    /// Like ``run(_:)``, but a cancelled caller stops waiting at once (`CancellationError`) while the job runs
    /// to its end on this thread, before any later job (a lease renewal racing its deadline).
    func runAbandonable<T: Sendable>(_ body: @escaping @Sendable (RedisConnection) throws -> T) async throws -> T {
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
                if Task.isCancelled { take()?.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            take()?.resume(throwing: CancellationError())
        }
    }

    /// Finishes the queued jobs, closes the connection and ends the thread.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func submit(_ job: @escaping (RedisConnection) -> Void) {
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
