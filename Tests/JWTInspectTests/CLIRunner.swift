import Foundation

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

    static func run(_ arguments: [String], stdin: Data? = nil, environment extra: [String: String] = [:]) throws -> Result {
        guard let executable else {
            throw CLIError("jwt-inspect is not built: run `swift build` (Tests/run.sh does) before the tests")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = repository
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment.merge(extra) { $1 }
        process.environment = environment
        let output = Pipe(), errors = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        // Feed stdin on another thread so a large input cannot deadlock against a full stdout pipe.
        let writer = Thread {
            if let stdin { input.fileHandleForWriting.write(stdin) }
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                      stderr: String(decoding: err, as: UTF8.self))
    }
}

struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
