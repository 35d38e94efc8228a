import Foundation
import TestProcesses
import Testing

/// Runs a sample executable built next to the test bundle (`swift build --build-tests` builds them).
enum SampleRunner {
    struct Result {
        let status: Int32
        let output: String
        let error: String
    }

    /// Runs the sample `name` to its end, off Swift's cooperative pool.
    static func run(_ name: String, _ arguments: [String]) async throws -> Result {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the samples first (swift build --build-tests)")
        let child = try await ChildProcess.run(binary, arguments)
        return Result(status: child.status, output: child.output, error: child.errors)
    }
}

/// A sample server running in the background until ``stop()``: started, then waited for until it
/// prints its `listening on` line (an event, not a delay).
final class RunningSample {
    let process: Process
    private let errors: Pipe

    /// Starts `name` with `arguments` and waits for its first standard-error line, which must start with `ready`.
    init(_ name: String, _ arguments: [String], ready: String = "listening on") async throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the samples first (swift build --build-tests)")
        process = Process()
        process.executableURL = binary
        process.arguments = arguments
        errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = try await ChildProcess.firstLine(of: errors.fileHandleForReading)
        guard text.hasPrefix(ready) else {
            stop()
            throw CLIError("\(name) did not start: \(text)")
        }
    }

    /// Ends the process (if still running) and reaps it.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()  // brief: reaping a sample just sent SIGTERM
    }

    /// A free TCP port on 127.0.0.1 (the kernel's pick, released for the sample to bind).
    static func freePort() throws -> UInt16 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        try #require(fd >= 0 && bound, "no free port")
        return UInt16(bigEndian: address.sin_port)
    }
}
