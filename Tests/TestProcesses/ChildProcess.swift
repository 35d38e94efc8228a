import Foundation

/// A child process run to its end by a test: its exit status and everything it wrote.
///
/// One runner for every test target (the CLI's, the samples', `openssl`, `jose`, Python):
/// - the wait happens off Swift's cooperative pool (``offCooperativePool(_:)``), so a slow
///   child never stalls the other tests running in parallel;
/// - at most ``concurrentChildren`` run at once (the others wait, suspended): the wait no longer
///   holding a pool thread, nothing else would keep hundreds of parallel tests from starting
///   hundreds of children together on a two-core machine;
/// - standard input is written, and standard error drained, on threads of their own while
///   standard output is read, so a child that writes much to one stream (or reads much) never
///   deadlocks against a full pipe; a child that exits without reading its input is no error
///   (`SIGPIPE` is ignored in the test process, and the write's `EPIPE` dropped).
public struct ChildProcess: Sendable {
    /// The exit status (or the signal's number when it was killed).
    public let status: Int32
    /// Everything the child wrote to standard output.
    public let stdout: Data
    /// Everything the child wrote to standard error.
    public let stderr: Data

    /// Standard output as UTF-8 text (invalid bytes replaced).
    public var output: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error as UTF-8 text (invalid bytes replaced).
    public var errors: String { String(decoding: stderr, as: UTF8.self) }

    /// Runs `executable` with `arguments` to its end.
    /// - Parameters:
    ///   - stdin: written to the child's standard input, which is then closed (`nil`: closed at once).
    ///   - environment: the child's whole environment (`nil`: this process's).
    ///   - directory: the child's working directory (`nil`: this process's).
    /// - Throws: what `Process.run()` throws when the executable cannot be started.
    public static func run(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil,
        environment: [String: String]? = nil, directory: URL? = nil
    ) async throws -> ChildProcess {
        await slots.acquire()
        do {
            let child = try await offCooperativePool {
                try runBlocking(executable, arguments, stdin: stdin, environment: environment, directory: directory)
            }
            await slots.release()
            return child
        } catch {
            await slots.release()
            throw error
        }
    }

    /// How many children ``run(_:_:stdin:environment:directory:)`` runs at once: twice the cores.
    public static let concurrentChildren = max(2, ProcessInfo.processInfo.activeProcessorCount) * 2

    private static let slots = Slots(concurrentChildren)

    /// ``run(_:_:stdin:environment:directory:)`` on the calling thread, for the rare caller that
    /// cannot suspend (a `static let` evaluated once by a trait's condition). A test's body uses `run`.
    public static func runBlocking(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil,
        environment: [String: String]? = nil, directory: URL? = nil
    ) throws -> ChildProcess {
        ignoreBrokenPipes
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe(), errors = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        let writer = Thread {
            if let stdin { try? input.fileHandleForWriting.write(contentsOf: stdin) }
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let drained = Drained()
        let reader = Thread {
            drained.set(errors.fileHandleForReading.readDataToEndOfFile())
        }
        reader.start()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = drained.wait()
        process.waitUntilExit()
        return ChildProcess(status: process.terminationStatus, stdout: out, stderr: err)
    }

    /// Reads `handle` up to its first newline (or end, or `limit` bytes) off the cooperative pool:
    /// a server's "ready" line (its port), an event to wait for rather than a delay.
    public static func firstLine(of handle: FileHandle, limit: Int = 4096) async throws -> String {
        try await offCooperativePool {
            var line = Data()
            while line.count < limit, let byte = try handle.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
                line.append(byte)
            }
            return String(decoding: line, as: UTF8.self)
        }
    }

    /// Waits off the cooperative pool for `process` to exit (after it was told to stop).
    public static func waitForExit(of process: Process) async {
        _ = try? await offCooperativePool { process.waitUntilExit() }
    }
}

/// `SIGPIPE` ignored once for the test process: writing to a child that has exited is `EPIPE`, not death.
let ignoreBrokenPipes: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

/// Hands out a fixed number of slots; a caller without one waits, suspended, in arrival order.
private actor Slots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

/// The bytes a reader thread drained, handed over once.
final class Drained: @unchecked Sendable {
    private let condition = NSCondition()
    private var data: Data?

    func set(_ value: Data) {
        condition.lock()
        data = value
        condition.signal()
        condition.unlock()
    }

    func wait() -> Data {
        condition.lock()
        defer { condition.unlock() }
        while data == nil { condition.wait() }
        return data ?? Data()
    }
}
