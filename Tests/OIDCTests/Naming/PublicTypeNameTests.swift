import Foundation
import Testing

/// The package's public type names, read from its sources: one spelling per word, and no top-level name that
/// an application's other imports (swift-http-types, swift-log, NIO, Hummingbird, Vapor, AsyncHTTPClient, ...)
/// already export (Tests/Naming/ecosystem-type-names.txt, a copy of the list those packages export).
@Suite("Public type names")
struct PublicTypeNameTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized

    struct Declared: Hashable {
        let name: String
        let topLevel: Bool
        let file: String
    }

    /// Every `public` struct, class, enum, actor, protocol or typealias under Sources/, nested ones included.
    static func publicTypes() throws -> [Declared] {
        let sources = root.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(atPath: sources.path) else { return [] }
        let pattern = try Regex(#"^(\s*)public (?:final )?(?:struct|class|enum|actor|protocol|typealias) ([A-Za-z0-9_]+)"#)
        var found: [Declared] = []
        for case let path as String in walker where path.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                guard let match = try pattern.firstMatch(in: String(line)),
                    let indent = match.output[1].substring, let name = match.output[2].substring
                else { continue }
                found.append(Declared(name: String(name), topLevel: indent.isEmpty, file: path))
            }
        }
        return found
    }

    /// The name with the package's one spelling of each word that has two in the wild.
    static func normalized(_ name: String) -> String {
        name.replacingOccurrences(of: "Backchannel", with: "BackChannel").replacingOccurrences(of: "InMemory", with: "Memory")
    }

    @Test("the sources declare public types (the scan itself works)")
    func scanFindsTypes() throws {
        let names = Set(try Self.publicTypes().map(\.name))
        #expect(names.contains("OIDCError"))
        #expect(names.count > 50)
    }

    @Test("no two public types differ only by BackChannel/Backchannel or Memory/InMemory")
    func noTwoSpellings() throws {
        let names = Set(try Self.publicTypes().map(\.name))
        let families = Dictionary(grouping: names, by: Self.normalized).filter { $0.value.count > 1 }
        #expect(families.isEmpty, "types that differ only by spelling: \(families.values.map { $0.sorted() })")
        // One spelling across the package, not only between twins.
        #expect(
            !(names.contains { $0.contains("Backchannel") } && names.contains { $0.contains("BackChannel") }),
            "both Backchannel and BackChannel: \(names.filter { $0.lowercased().contains("backchannel") }.sorted())")
        let memory = names.filter { $0.hasPrefix("Memory") || $0.contains("InMemory") }
        #expect(
            !(memory.contains { $0.hasPrefix("Memory") } && memory.contains { $0.contains("InMemory") }),
            "both Memory… and InMemory…: \(memory.sorted())")
    }

    @Test("no public top-level type is named like an ecosystem type")
    func noEcosystemNames() throws {
        let list = try String(contentsOf: Self.root.appendingPathComponent("Tests/Naming/ecosystem-type-names.txt"), encoding: .utf8)
        let ecosystem = Set(list.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") })
        #expect(ecosystem.count > 100)
        // Vapor's names and those it re-exports (ConsoleKit, RoutingKit, Crypto, ...), which a Vapor app sees unqualified.
        #expect(ecosystem.isSuperset(of: ["Application", "Request", "Response", "AsyncMiddleware", "StorageKey", "Session", "Command", "SymmetricKey"]))
        let clashes = try Self.publicTypes().filter { $0.topLevel && ecosystem.contains($0.name) }
        #expect(clashes.isEmpty, "public top-level types named like ecosystem types: \(clashes.map { "\($0.name) (\($0.file))" })")
    }

    @Test("the rules catch what they are for")
    func rulesBite() {
        #expect(Self.normalized("BackchannelAuthenticationRequest") == Self.normalized("BackChannelAuthenticationRequest"))
        #expect(Self.normalized("InMemoryReplayCache") == Self.normalized("MemoryReplayCache"))
        #expect(Self.normalized("TokenClient") == "TokenClient")
    }
}
