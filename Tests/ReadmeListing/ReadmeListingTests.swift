import Foundation
import Testing

/// `PartnerBackEnd.swift` and `FAPIBackEnd.swift` are README listings: this target compiles them, and this
/// test checks that the README shows exactly those files, so the documentation cannot drift from code
/// that builds.
@Suite("README listing")
struct ReadmeListingTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    @Test("README.md contains each compiled listing verbatim, inside a swift code block",
          arguments: ["PartnerBackEnd.swift", "FAPIBackEnd.swift"])
    func verbatim(_ file: String) throws {
        let listing = try String(contentsOf: Self.here.appendingPathComponent(file), encoding: .utf8)
        let readme = try String(contentsOf: Self.here.appendingPathComponent("../../README.md").standardized, encoding: .utf8)
        #expect(readme.contains("```swift\n" + listing + "```\n"), "README.md no longer shows Tests/ReadmeListing/\(file)")
    }
}
