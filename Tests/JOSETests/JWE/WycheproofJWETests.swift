import Foundation
import Testing

@testable import JOSE

/// Wycheproof `json_web_encryption_test.json` (a byte-for-byte copy under
/// `Fixtures/vectors/wycheproof/jwe/`, kept out of `testvectors_v1/` so that the
/// JWS runner does not count it as skipped).
///
/// Expected outcomes: `valid` must decrypt to `pt`, `invalid` must be refused,
/// except where this library refuses by design: `RSA1_5` keys and tokens
/// (`.unsupportedAlgorithm`) and compressed plaintexts (`zip`, `.unsupportedAlgorithm`).
@Suite("JWE: Wycheproof json_web_encryption_test.json")
struct WycheproofJWETests {
    static let url = Fixtures.directory.appendingPathComponent("vectors/wycheproof/jwe/json_web_encryption_test.json")

    struct Outcome: Sendable {
        var vectors = 0
        var decrypted = 0
        var refused = 0
        var refusedByDesign = 0
        var wrong: [String] = []
        /// The RFC 7520 §5 figures (group comment `rfc_7520`) that decrypted.
        var rfc7520Decrypted: [String] = []
    }

    static func run() throws -> Outcome {
        let root = try Fixtures.object(url)
        var outcome = Outcome()
        for groupValue in root["testGroups"]?.arrayValue ?? [] {
            guard let group = groupValue.objectValue, let privateKey = group["private"]?.objectValue else { continue }
            let key = try JWK(jsonObject: privateKey)
            for testValue in group["tests"]?.arrayValue ?? [] {
                guard let test = testValue.objectValue, let tcId = test["tcId"]?.int64Value else { continue }
                outcome.vectors += 1
                let text = test["jwe"]?.stringValue ?? test["jwe"].map { JSONValue.object($0.objectValue ?? JSONObject()).jsonString() } ?? ""
                let flags = (test["flags"]?.arrayValue ?? []).compactMap(\.stringValue)
                let valid = test["result"]?.stringValue == "valid"
                let byDesign = privateKey["alg"]?.stringValue == "RSA1_5" || flags.contains("CompressedPlaintext")
                let label = "#\(tcId) \(test["comment"]?.stringValue ?? "")"
                do {
                    let plaintext = try CompactJWE(text).decrypt(with: key)
                    if valid, !byDesign, plaintext == hexBytes(test["pt"]?.stringValue ?? "") {
                        outcome.decrypted += 1
                        if group["comment"]?.stringValue == "rfc_7520" { outcome.rfc7520Decrypted.append(test["comment"]?.stringValue ?? "") }
                    } else {
                        outcome.wrong.append("\(label): decrypted but should have been refused (or wrong plaintext)")
                    }
                } catch let error as JOSEError {
                    if byDesign {
                        if error.code == .unsupportedAlgorithm {
                            outcome.refusedByDesign += 1
                        } else {
                            outcome.wrong.append("\(label): refused by design expected unsupported_algorithm, got \(error)")
                        }
                    } else if valid {
                        outcome.wrong.append("\(label): valid but refused: \(error)")
                    } else {
                        outcome.refused += 1
                    }
                }
            }
        }
        return outcome
    }

    @Test("every vector has the expected outcome")
    func vectors() throws {
        let outcome = try Self.run()
        print(
            "wycheproof JWE: \(outcome.vectors) vectors, \(outcome.decrypted) decrypted, \(outcome.refused) refused as invalid, \(outcome.refusedByDesign) refused by design, \(outcome.wrong.count) wrong"
        )
        #expect(outcome.vectors == 139)
        // RFC 7520 §5.2 (RSA-OAEP), §5.4 (ECDH-ES+A128KW P-384), §5.5 (ECDH-ES P-256), §5.6 (dir A128GCM),
        // §5.7 (A256GCMKW), §5.8 (A128KW); §5.1 (RSA1_5) and §5.9 (zip) are refused by design.
        #expect(outcome.rfc7520Decrypted.sorted() == ["Figure117", "Figure128", "Figure136", "Figure148", "Figure159", "Figure92"])
        #expect(outcome.wrong.isEmpty, "\(outcome.wrong.joined(separator: "\n"))")
    }
}
