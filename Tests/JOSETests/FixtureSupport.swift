import Foundation
import Testing

@testable import JOSE

/// Reads files under `Tests/JOSETests/Fixtures/`, located from this source file
/// (the same `#filePath` approach as ``TestKeys``), and small helpers shared by
/// the vector tests.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let wycheproofDirectory = directory.appendingPathComponent("vectors/wycheproof/testvectors_v1")
    static let rfcDirectory = directory.appendingPathComponent("vectors/rfc")

    /// Generous limits: the fixture files are trusted and some exceed 1 MiB.
    static let fileLimits = JSONLimits(maxDepth: 64, maxBytes: 64 << 20)

    static func bytes(_ url: URL) throws -> [UInt8] { try [UInt8](Data(contentsOf: url)) }

    /// Parses a fixture file into an object.
    static func object(_ url: URL) throws -> JSONObject {
        try JSONParser.parseObject(bytes(url), limits: fileLimits, what: url.lastPathComponent)
    }

    /// The `.json` files of a fixture folder, sorted by name.
    static func jsonFiles(in directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }
}

/// Hex decoding for Wycheproof fields.
func hexBytes(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count / 2)
    var high: UInt8? = nil
    for char in text.utf8 {
        let value: UInt8
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): value = char - UInt8(ascii: "A") + 10
        default: preconditionFailure("not hex: \(text)")
        }
        if let h = high { out.append(h << 4 | value); high = nil } else { high = value }
    }
    precondition(high == nil, "odd-length hex")
    return out
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// The code of a thrown error, or `nil` when it is not a ``JOSEError``.
func joseCode(_ body: () throws -> Void) -> JOSEError.Code? {
    do { try body(); return nil } catch let error as JOSEError { return error.code } catch { return nil }
}

/// `#expect` helper: asserts `body` throws a ``JOSEError`` with exactly `code`.
func expectCode(
    _ code: JOSEError.Code, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected \(code) but nothing was thrown. \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch let error as JOSEError {
        #expect(error.code == code, "expected \(code), got \(error). \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected JOSEError \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

extension JSONObject {
    func string(_ name: String) -> String? { self[name]?.stringValue }
    func int(_ name: String) -> Int? { self[name]?.int64Value.map { Int($0) } }
    func object(_ name: String) -> JSONObject? { self[name]?.objectValue }
    func array(_ name: String) -> [JSONValue] { self[name]?.arrayValue ?? [] }
}
