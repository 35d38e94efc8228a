import Foundation
import TestProcesses

/// Debian's `jose` and Python's `cryptography`, run as subprocesses to check what
/// `jwt-inspect` makes against independent implementations.
enum External {
    struct Result { let status: Int32; let stdout: String; let stderr: String }

    static func which(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    static let jose = which("jose")
    static let python = which("python3")
    /// Whether `python3 -c 'import cryptography'` works (no download is ever attempted).
    static let hasCryptography: Bool = {
        guard let python else { return false }
        return (try? ChildProcess.runBlocking(URL(fileURLWithPath: python), ["-c", "import cryptography"]).status) == 0
    }()

    /// Runs `executable` to its end from the repository's root, off Swift's cooperative pool.
    static func run(_ executable: String, _ arguments: [String], stdin: Data? = nil) async throws -> Result {
        let child = try await ChildProcess.run(URL(fileURLWithPath: executable), arguments, stdin: stdin, directory: CLI.repository)
        return Result(status: child.status, stdout: child.output, stderr: child.errors)
    }

    /// A scratch directory for one test.
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A copy of the JWK at `Keys/name` without `alg` and `key_ops` (jose refuses an
    /// algorithm other than the JWK's `alg`), written to `directory`.
    static func unrestrictedJWK(_ name: String, in directory: URL) throws -> String {
        let data = try Data(contentsOf: CLI.repository.appendingPathComponent("Keys/\(name)"))
        guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw CLIError("Keys/\(name) is not a JSON object") }
        object["alg"] = nil
        object["key_ops"] = nil
        let url = directory.appendingPathComponent(name)
        try JSONSerialization.data(withJSONObject: object).write(to: url)
        return url.path
    }
}
