import Foundation

/// A thread that owns one ``PGConnection`` and runs jobs on it in order.
///
/// libpq blocks; these threads are the only ones that call it, so Swift's
/// cooperative pool never waits on the database (a waiting caller is a suspended
/// task, not a blocked thread).
final class PGWorker: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [(PGConnection) -> Void] = []
    private var stopping = false
    private let connection: PGConnection

    init(conninfo: String, statementTimeoutMilliseconds: Int) {
        connection = PGConnection(conninfo: conninfo, statementTimeoutMilliseconds: statementTimeoutMilliseconds)
        let thread = Thread { [self] in loop() }
        thread.name = "OIDCPostgres connection"
        thread.start()
    }

    /// Runs `body` with the connection on this worker's thread.
    func run<T: Sendable>(_ body: @escaping @Sendable (PGConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { connection in
                do { continuation.resume(returning: try body(connection)) } catch { continuation.resume(throwing: error) }
            }
        }
    }

    /// Finishes the queued jobs, closes the connection and ends the thread.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func submit(_ job: @escaping (PGConnection) -> Void) {
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
