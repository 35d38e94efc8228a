import Foundation

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
        return (try? run(python, ["-c", "import cryptography"]).status) == 0
    }()

    static func run(_ executable: String, _ arguments: [String], stdin: Data? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = CLI.repository
        let output = Pipe(), errors = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                      stderr: String(decoding: err, as: UTF8.self))
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
