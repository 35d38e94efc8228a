import Foundation

/// A child process a test starts and leaves running: a scripted server that prints its "ready" line
/// (its port) and serves until its standard input closes, or a helper that announces a step.
///
/// The one place for that shape (``ChildProcess/run(_:_:stdin:environment:directory:)`` runs a child
/// to its end): its first line is read, and its exit waited for, off Swift's cooperative pool.
public final class StartedChild: @unchecked Sendable {
    /// The running process.
    public let process = Process()
    private let output = Pipe(), input = Pipe()
    private let errors: Drained?

    /// Starts `executable` with `arguments`. Standard error goes to the test's own, unless
    /// `capturingErrors` (then it is drained on a thread of its own and returned by ``finish()``).
    public init(_ executable: URL, _ arguments: [String], capturingErrors: Bool = false) throws {
        ignoreBrokenPipes
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardInput = input
        let errorPipe = capturingErrors ? Pipe() : nil
        if let errorPipe { process.standardError = errorPipe }
        try process.run()
        errors = errorPipe.map { pipe in
            let drained = Drained()
            Thread { drained.set(pipe.fileHandleForReading.readDataToEndOfFile()) }.start()
            return drained
        }
    }

    /// The first line of standard output (up to `limit` bytes; empty when it ended first).
    public func firstLine(limit: Int = 4096) async throws -> String {
        try await ChildProcess.firstLine(of: output.fileHandleForReading, limit: limit)
    }

    /// Closes standard input (the scripted servers exit then) and waits, off the pool, for the exit.
    /// - Returns: the exit status and, when captured, what the child wrote to standard error.
    @discardableResult
    public func finish() async -> (status: Int32, errors: String) {
        try? input.fileHandleForWriting.close()
        await ChildProcess.waitForExit(of: process)
        let text = try? await offCooperativePool { [errors] in errors.map { String(decoding: $0.wait(), as: UTF8.self) } ?? "" }
        return (process.terminationStatus, text ?? "")
    }

    /// Stops the child at once: standard input closed, `SIGKILL`, then reaped (a brief wait, so a
    /// test's `defer` can call it).
    public func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
