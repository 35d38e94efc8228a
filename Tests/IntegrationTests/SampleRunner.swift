import Foundation
import Testing

/// Runs a sample executable built next to the test bundle (`swift build --build-tests` builds them).
enum SampleRunner {
    struct Result {
        let status: Int32
        let output: String
        let error: String
    }

    static func run(_ name: String, _ arguments: [String]) throws -> Result {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the samples first (swift build --build-tests)")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                      error: String(decoding: err, as: UTF8.self))
    }
}
