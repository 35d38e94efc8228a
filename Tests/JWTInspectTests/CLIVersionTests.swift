import Foundation
import Testing

/// One version, said in three places: `jwt-inspect --version`, the newest CHANGELOG entry and the README's
/// dependency line.
@Suite("Version")
struct CLIVersionTests {
    static func read(_ path: String) throws -> String {
        try String(contentsOf: CLI.repository.appendingPathComponent(path), encoding: .utf8)
    }

    /// The version of the newest CHANGELOG entry: `## [x.y.z]` or `## [Unreleased] — to be released as x.y.z`.
    static func changelogVersion() throws -> String? {
        let pattern = try Regex(#"(?m)^## \[(?:Unreleased\] — to be released as |)([0-9]+\.[0-9]+\.[0-9]+)"#)
        return try pattern.firstMatch(in: try read("CHANGELOG.md"))?.output[1].substring.map(String.init)
    }

    @Test("jwt-inspect --version, the CHANGELOG and the README name the same version")
    func oneVersion() async throws {
        let run = try await CLI.run(["--version"])
        #expect(run.status == 0)
        let printed = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let changelog = try #require(try Self.changelogVersion())
        #expect(printed == "jwt-inspect \(changelog)")
        #expect(try Self.read("README.md").contains("from: \"\(changelog)\""))
    }
}
