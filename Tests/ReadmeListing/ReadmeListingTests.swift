import Foundation
import Testing

/// Every Swift snippet of the documentation compiles: each ```swift block of README.md and of every
/// article in a DocC catalog (`Sources/**/*.docc/*.md`) is either a whole file of this target, shown
/// verbatim (so the target compiles it), or marked right before the block as deliberately partial —
/// `<!-- snippet: partial NAME — reason -->` — with NAME listed in ``partials``.
@Suite("README listing")
struct ReadmeListingTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let root = here.appendingPathComponent("../..").standardized

    /// The only snippets that are not compiled, and why. Keep this short: prefer a listing file.
    static let partials: [String: String] = [
        "package-manifest": "a Package.swift manifest (PackageDescription), which no test target can import; "
            + "its product names are checked against this package's Package.swift instead"
    ]

    struct Block {
        let document: String
        let line: Int
        let code: String
        let partialName: String?
    }

    /// The listing files: every Swift file of this target but this test.
    static func listings() throws -> [String: String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: here.path)
            .filter { $0.hasSuffix(".swift") && $0 != "ReadmeListingTests.swift" }
        return try Dictionary(
            uniqueKeysWithValues: names.map {
                ($0, try String(contentsOf: here.appendingPathComponent($0), encoding: .utf8))
            })
    }

    /// README.md and every Markdown file inside a `.docc` catalog under Sources/.
    static func documents() throws -> [(name: String, text: String)] {
        var paths = ["README.md"]
        let sources = root.appendingPathComponent("Sources")
        if let walker = FileManager.default.enumerator(atPath: sources.path) {
            for case let path as String in walker where path.hasSuffix(".md") && path.contains(".docc/") {
                paths.append("Sources/" + path)
            }
        }
        return try paths.sorted().map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The ```swift blocks of a document, their code with the fence's indentation removed.
    static func swiftBlocks(in document: String, named name: String) -> [Block] {
        let lines = document.components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("```swift") else { index += 1; continue }
            let indent = line.count - trimmed.count
            var previous = index - 1
            while previous >= 0, lines[previous].trimmingCharacters(in: .whitespaces).isEmpty { previous -= 1 }
            let partialName = previous >= 0 ? partialMarker(lines[previous]) : nil
            var code = ""
            var end = index + 1
            while end < lines.count, !lines[end].drop(while: { $0 == " " }).hasPrefix("```") {
                code += String(lines[end].dropFirst(min(indent, lines[end].prefix { $0 == " " }.count))) + "\n"
                end += 1
            }
            blocks.append(Block(document: name, line: index + 1, code: code, partialName: partialName))
            index = end + 1
        }
        return blocks
    }

    /// NAME of `<!-- snippet: partial NAME — reason -->`, or nil.
    static func partialMarker(_ line: String) -> String? {
        let text = line.trimmingCharacters(in: .whitespaces)
        let prefix = "<!-- snippet: partial "
        guard text.hasPrefix(prefix), text.hasSuffix("-->") else { return nil }
        return text.dropFirst(prefix.count).split(separator: " ").first.map(String.init)
    }

    static func allBlocks() throws -> [Block] {
        try documents().flatMap { swiftBlocks(in: $0.text, named: $0.name) }
    }

    @Test("Every ```swift block is a compiled listing, shown verbatim, or a named partial")
    func everySnippetCompiles() throws {
        let listings = Set(try Self.listings().values)
        let blocks = try Self.allBlocks()
        #expect(blocks.count >= listings.count)
        for block in blocks where !listings.contains(block.code) {
            if let name = block.partialName {
                #expect(Self.partials[name] != nil, "\(block.document):\(block.line): partial snippet \(name) is not in ReadmeListingTests.partials")
            } else {
                Issue.record(
                    "\(block.document):\(block.line): a ```swift block that is neither a file of Tests/ReadmeListing shown verbatim nor marked <!-- snippet: partial NAME — reason -->"
                )
            }
        }
    }

    @Test("Each listing file is shown, verbatim, by README.md or a DocC article")
    func everyListingIsShown() throws {
        let shown = Set(try Self.allBlocks().map(\.code))
        for (file, listing) in try Self.listings() {
            #expect(shown.contains(listing), "no document shows Tests/ReadmeListing/\(file) verbatim")
        }
    }

    /// The types declared `package` under Sources/: reachable by this test target, never by an application.
    static func packageTypeNames() throws -> Set<String> {
        let sources = root.appendingPathComponent("Sources")
        let declaration = /^\s*package\s+(?:final\s+)?(?:struct|enum|class|actor|protocol|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)/
            .anchorsMatchLineEndings()
        var names = Set<String>()
        if let walker = FileManager.default.enumerator(atPath: sources.path) {
            for case let path as String in walker where path.hasSuffix(".swift") {
                let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
                for match in text.matches(of: declaration) { names.insert(String(match.1)) }
            }
        }
        return names
    }

    @Test("No listing names a package type: an application could not write it")
    func listingsUsePublicTypesOnly() throws {
        let hidden = try Self.packageTypeNames()
        #expect(hidden.contains("OAuthRequest"), "the scan found no package type: this test proves nothing")
        let word = /[A-Za-z_][A-Za-z0-9_]*/
        for (file, listing) in try Self.listings() {
            let code = listing.components(separatedBy: "\n").map { $0.components(separatedBy: "//")[0] }.joined(separator: "\n")
            let used = Set(code.matches(of: word).map { String($0.0) })
            let named = used.intersection(hidden).sorted()
            #expect(named.isEmpty, "Tests/ReadmeListing/\(file) names package types \(named), which an application cannot use")
        }
    }

    @Test("Each allowed partial is used by some document")
    func partialsAreUsed() throws {
        let used = try Self.allBlocks().compactMap(\.partialName)
        for name in Self.partials.keys {
            #expect(used.contains(name), "partial \(name) is allowed but no document uses it: remove it from the list")
        }
    }

    @Test("The README's quickstart section shows the two fresh-machine commands")
    func quickstart() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section =
            readme.components(separatedBy: "<!-- section:quickstart -->").dropFirst().first?
            .components(separatedBy: "<!-- /section:quickstart -->").first ?? ""
        #expect(section.contains("```sh\nswift run jwt-inspect --key Keys/rsa2048.pub.pem < Samples/tokens/rs256.jwt\n```"))
        #expect(section.contains("```sh\nbash Tests/run.sh\n```"))
    }

    @Test("The manifest snippets name only products this package has")
    func manifestProducts() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let manifests = try Self.allBlocks().filter { $0.partialName == "package-manifest" }
        #expect(!manifests.isEmpty)
        for block in manifests {
            let products = block.code.components(separatedBy: ".product(name: \"").dropFirst()
                .compactMap { $0.split(separator: "\"").first.map(String.init) }
            #expect(!products.isEmpty, "\(block.document):\(block.line): no .product(name:) in the manifest snippet")
            for product in products {
                #expect(
                    manifest.contains(".library(name: \"\(product)\""),
                    "\(block.document):\(block.line): the manifest snippet names \(product), which Package.swift does not offer")
            }
        }
    }

    /// The public type names of the toolkit's modules (`public [final] struct/class/actor/enum/protocol NAME`).
    static func toolkitTypeNames() throws -> Set<String> {
        var names: Set<String> = []
        let sources = root.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(atPath: sources.path) else { return names }
        for case let path as String in walker where path.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            for kind in ["struct", "class", "final class", "actor", "enum", "protocol"] {
                for part in text.components(separatedBy: "public \(kind) ").dropFirst() {
                    let name = part.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                    if !name.isEmpty { names.insert(String(name)) }
                }
            }
        }
        return names
    }

    @Test("The README's login listing names at most 6 of the toolkit's types")
    func partnerBackEndIsSmall() throws {
        let listing = try String(contentsOf: Self.here.appendingPathComponent("PartnerBackEnd.swift"), encoding: .utf8)
        let words = Set(listing.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
        let named = words.intersection(try Self.toolkitTypeNames())
        #expect(named.count <= 6, "PartnerBackEnd.swift names \(named.count) toolkit types: \(named.sorted())")
    }

    @Test("The README's resource-server listing: one toolkit import, at most 3 toolkit types, no catch")
    func resourceServerIsSmall() throws {
        let listing = try String(contentsOf: Self.here.appendingPathComponent("ResourceServer.swift"), encoding: .utf8)
        // The code, without its comments (they may say "JWT" or "DPoP-Nonce" in prose).
        let code = listing.split(separator: "\n").map { $0.components(separatedBy: "//").first ?? "" }.joined(separator: "\n")
        let words = Set(code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
        let named = words.intersection(try Self.toolkitTypeNames())
        #expect(named.count <= 3, "ResourceServer.swift names \(named.count) toolkit types: \(named.sorted())")
        let imports = listing.split(separator: "\n").filter { $0.hasPrefix("import ") && $0 != "import Foundation" }
        #expect(imports == ["import OIDCResourceServer"], "\(imports)")
        #expect(!words.contains("catch") && !listing.contains("OIDCError("))
    }
}
