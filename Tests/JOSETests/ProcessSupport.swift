import Foundation
import TestProcesses

/// Runs command-line tools (`openssl`) for the cross-implementation tests.
enum Tool {
    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Whether an executable is on PATH (or at an absolute path).
    static func find(_ name: String) -> String? {
        if name.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `executable` (a name on PATH or a path) to its end, off Swift's cooperative pool.
    static func run(_ executable: String, _ arguments: [String]) async throws -> Output {
        let child = try await ChildProcess.run(URL(fileURLWithPath: find(executable) ?? executable), arguments)
        return Output(status: child.status, stdout: child.output, stderr: child.errors)
    }

    /// A fresh private temporary directory, removed by the caller with `cleanUp`.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jose-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func cleanUp(_ url: URL) { try? FileManager.default.removeItem(at: url) }

    static var hasOpenSSL: Bool { find("openssl") != nil }
}
