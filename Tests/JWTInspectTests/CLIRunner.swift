import Foundation
import TestProcesses

/// Runs the built `jwt-inspect` executable as a subprocess.
enum CLI {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String

        /// The top-level `reason` of a `--json` run.
        var reason: String? { json?["reason"] as? String }
        var result: String? { json?["result"] as? String }
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
        }
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The executable next to the test bundle (any scratch path), else in .build/debug.
    static let executable: URL? = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("jwt-inspect"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("jwt-inspect"),
            repository.appendingPathComponent(".build/debug/jwt-inspect"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs `jwt-inspect` with `arguments` from the repository's root (`NO_COLOR=1`), off Swift's cooperative pool.
    static func run(_ arguments: [String], stdin: Data? = nil, environment extra: [String: String] = [:]) async throws -> Result {
        guard let executable else {
            throw CLIError("jwt-inspect is not built: run `swift build` (Tests/run.sh does) before the tests")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment.merge(extra) { $1 }
        let child = try await ChildProcess.run(executable, arguments, stdin: stdin, environment: environment, directory: repository)
        return Result(status: child.status, stdout: child.output, stderr: child.errors)
    }
}

struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
