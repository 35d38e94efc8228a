import Foundation

/// Runs blocking work (waiting for a child process, reading its pipes) on a thread of its own
/// while the calling task is suspended.
///
/// Swift Testing runs every test as a task on the cooperative pool, which is as wide as the
/// machine has cores (two on CI). A test that reads a child's output or waits for its exit on
/// that pool holds one of its threads for as long as the child runs; two such tests at once
/// stall every other test's tasks, timers included (a PostgreSQL lease renewal due every
/// 0.67 s waited for more than its lease's 4 s, and a 10 s test took 60 to 90 s). With this,
/// a waiting test holds no pool thread.
///
/// `body` must not use Swift Testing's `#require` or `Issue.record`: it runs outside the test's task.
public func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.name = "test child-process wait"
        thread.start()
    }
}
