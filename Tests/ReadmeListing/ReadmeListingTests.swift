import Foundation
import Testing

/// `PartnerBackEnd.swift` is the README's partner back end listing: this target compiles it, and this
/// test checks that the README shows exactly that file, so the documentation cannot drift from code
/// that builds.
@Suite("README listing")
struct ReadmeListingTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    @Test("README.md contains PartnerBackEnd.swift verbatim, inside a swift code block")
    func verbatim() throws {
        let listing = try String(contentsOf: Self.here.appendingPathComponent("PartnerBackEnd.swift"), encoding: .utf8)
        let readme = try String(contentsOf: Self.here.appendingPathComponent("../../README.md").standardized, encoding: .utf8)
        #expect(readme.contains("```swift\n" + listing + "```\n"), "README.md no longer shows Tests/ReadmeListing/PartnerBackEnd.swift")
    }
}
