import Foundation
import JOSE
import OIDC
import Testing

/// Error codes: declared once per module, in one file each, never repeating JOSE's texts, each with the category
/// an application branches on.
@Suite("Error codes and categories")
struct ErrorCodeDeclarationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized

    /// (module, file, code text or JOSE case) for every `OIDCError.Code(…, .category)` declaration under Sources/.
    static func declarations() throws -> [(module: String, file: String, text: String)] {
        let sources = root.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(atPath: sources.path) else { return [] }
        let pattern = try Regex(#"static let [A-Za-z0-9_]+ = OIDCError\.Code\((?:"([^"]+)"|JOSEError\.Code\.([A-Za-z0-9_]+)|rawValue: "([^"]+)")"#)
        var found: [(String, String, String)] = []
        for case let path as String in walker where path.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            for match in text.matches(of: pattern) {
                let value = match.output[1].substring ?? match.output[2].substring.map { "JOSE.\($0)" } ?? match.output[3].substring ?? ""
                found.append((String(path.split(separator: "/")[0]), path, String(value)))
            }
        }
        return found
    }

    @Test("each module declares its codes in one file, named after the module")
    func oneFilePerModule() throws {
        let all = try Self.declarations()
        #expect(all.count > 150)
        for (module, declarations) in Dictionary(grouping: all, by: \.module) {
            let files = Set(declarations.map(\.file))
            #expect(files == ["\(module)/\(module)ErrorCodes.swift"], "\(module) declares codes in \(files.sorted())")
        }
    }

    @Test("no code text is declared twice, and none repeats a JOSE code's text")
    func noRepeats() throws {
        let texts = try Self.declarations().map(\.text)
        let repeated = Dictionary(grouping: texts, by: { $0 }).filter { $0.value.count > 1 }.keys
        #expect(repeated.isEmpty, "declared twice: \(repeated.sorted())")
        let jose = Set(JOSEError.Code.allCases.map(\.rawValue))
        let copies = texts.filter { jose.contains($0) }
        #expect(copies.isEmpty, "JOSE's texts written again (use OIDCError.Code(JOSEError.Code.x, ...)): \(copies)")
    }

    @Test("codes carry their category; JOSE's codes keep JOSE's text")
    func categories() {
        #expect(OIDCError.Code.stateMismatch.category == .invalidInput)
        #expect(OIDCError.Code.transport.category == .unavailable)
        #expect(OIDCError.Code.insecureURL.category == .configuration)
        #expect(OIDCError.Code.oauthError.category == .providerRefused)
        #expect(OIDCError.Code.expired.rawValue == JOSEError.Code.expired.rawValue)
        // A code this version does not know, read back from a log or a store, is compared by its text.
        #expect(OIDCError.Code(rawValue: "transport") == .transport)
        #expect(OIDCError.Code(rawValue: "something_new").category == .invalidInput)
    }

    @Test("an OAuth error refines the category; each category has its HTTP answer")
    func refinedCategory() {
        func refused(_ code: String) -> OIDCError {
            OIDCError(.oauthError, "refused", oauthError: OAuthError(error: code), httpStatus: 400)
        }
        #expect(refused("invalid_grant").category == .authenticateAgain)
        #expect(refused("login_required").category == .authenticateAgain)
        #expect(refused("temporarily_unavailable").category == .unavailable)
        #expect(refused("invalid_scope").category == .providerRefused)
        #expect(refused("invalid_grant").suggestedHTTPStatus == 401)
        #expect(OIDCError(.stateMismatch, "state").suggestedHTTPStatus == 400)
        #expect(OIDCError(.transport, "down").suggestedHTTPStatus == 503)
        #expect(OIDCError(.insecureURL, "http").suggestedHTTPStatus == 500)
        #expect(Set(OIDCError.Category.allCases.map(\.httpStatus)) == [400, 401, 403, 503, 500])
    }
}
