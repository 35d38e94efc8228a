import Foundation
import OIDC
import Testing

/// Every runnable row of ``RPToolTable`` against the OpenID Foundation RP test tool: the client registers itself
/// (RFC 7591), logs in, and must end as the row says: accepted, or refused with that typed code.
@Suite("OpenID Foundation RP tests", .enabled(if: RPTool.isRunning, "the RP test tool is not running (Tests/RPTool/start.sh needs Python 3.7)"))
struct RPToolTests {
    static let runnable = RPToolTable.cases.filter { if case .notRun = $0.expect { return false }; return true }

    @Test("RP test id", arguments: runnable)
    func rpTest(_ testCase: RPToolCase) async throws {
        let (outcome, detail) = try await RPTool.run(testCase)
        switch testCase.expect {
        case .accepted:
            #expect(outcome == .accepted, "\(testCase.id): \(detail)")
        case .refused(let code):
            #expect(outcome == .refused(code), "\(testCase.id): \(detail)")
        case .notRun:
            Issue.record("not runnable")
        }
    }
}

/// The README's "OpenID Foundation RP tests" table is ``RPToolTable`` rendered: it cannot go stale.
@Suite struct RPToolReadmeTests {
    static func rendered() -> String {
        var lines = ["| Test id | Outcome |", "|---|---|"]
        for row in RPToolTable.cases {
            let outcome: String
            switch row.expect {
            case .accepted: outcome = "passes"
            case .refused(let code): outcome = "refused as expected (`\(code)`)"
            case .notRun(let why): outcome = "not run: \(why)"
            }
            lines.append("| `\(row.id)` | \(outcome)\(row.note.isEmpty ? "" : "; \(row.note)") |")
        }
        return lines.joined(separator: "\n")
    }

    @Test func readmeTableIsTheTestTable() throws {
        let readme = try String(contentsOf: Provider.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let begin = "<!-- rp-tests:begin -->\n", end = "<!-- rp-tests:end -->"
        let start = try #require(readme.range(of: begin), "README.md has no \(begin)")
        let stop = try #require(readme.range(of: end, range: start.upperBound..<readme.endIndex))
        let table = String(readme[start.upperBound..<stop.lowerBound]).trimmingCharacters(in: .newlines)
        if table != Self.rendered() {
            // The table to paste, for whoever changed RPToolTable.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("rp-tests-table.md")
            try? Self.rendered().write(to: file, atomically: true, encoding: .utf8)
            Issue.record("README.md's RP test table differs from RPToolTable; the table it should hold is in \(file.path)")
        }
    }
}
