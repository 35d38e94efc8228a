import Foundation
import Testing

@testable import JOSE

@Suite("Wycheproof test vectors")
struct WycheproofTests {
    @Test("every Wycheproof file gives the expected outcome for every vector", arguments: Wycheproof.files)
    func file(_ name: String) throws {
        let result = try #require(Wycheproof.results[name])
        #expect(result.vectors > 0)
        #expect(result.vectors == result.declared, "counted \(result.vectors) vectors, the file declares \(result.declared)")
        #expect(result.wrong.isEmpty, "\(result.wrong.count) wrong in \(name):\n\(result.wrong.prefix(20).joined(separator: "\n"))")
        #expect(result.acceptableAccepted == 0)
    }

    @Test("all 24 files are present and the totals are printed")
    func summary() throws {
        #expect(Wycheproof.files.count == 24)
        var vectors = 0, wrong = 0, skipped = 0, overridden = 0, acceptable = 0
        for name in Wycheproof.files {
            let result = try #require(Wycheproof.results[name])
            print(result.line)
            vectors += result.vectors
            wrong += result.wrong.count
            skipped += result.skipped
            overridden += result.overridden
            acceptable += result.acceptableSeen
        }
        print("wycheproof: \(vectors) vectors, \(wrong) wrong, \(skipped) skipped, \(overridden) overridden")
        print("wycheproof: \(acceptable) acceptable vectors, all required to be rejected")
        #expect(wrong == 0)
        #expect(overridden == Wycheproof.overrides.count)
        #expect(skipped == 0)
    }

    /// Finds a json_web_signature_test vector and its group.
    static func joseVector(_ tcId: Int) throws -> (group: JSONObject, test: JSONObject)? {
        let root = try Fixtures.object(Fixtures.wycheproofDirectory.appendingPathComponent("json_web_signature_test.json"))
        for group in root.array("testGroups").compactMap(\.objectValue) {
            for test in group.array("tests").compactMap(\.objectValue) where test.int("tcId") == tcId { return (group, test) }
        }
        return nil
    }

    @Test(
        "each override holds: the library gives exactly the outcome the override table states",
        arguments: Wycheproof.overrides.keys.sorted())
    func overridden(_ entry: String) throws {
        let tcId = try #require(Int(entry.split(separator: "#")[1]))
        let override = try #require(Wycheproof.overrides[entry])
        let (group, test) = try #require(try Self.joseVector(tcId))
        let keyObject = try #require(group.object("public") ?? group.object("private"))
        if let code = override.code {
            #expect(test.string("result") == "valid", "overrides with an error code reverse a 'valid' vector")
            expectCode(code) { try Wycheproof.verifyJOSE(test["jws"] ?? .null, keyObject: keyObject) }
        } else {
            // The vector says invalid, but its bytes are those of the valid tcId 357.
            #expect(test.string("result") == "invalid")
            let reference = try #require(try Self.joseVector(357))
            #expect(reference.test.string("result") == "valid")
            #expect(test.string("jws") == reference.test.string("jws"))
            try Wycheproof.verifyJOSE(test["jws"] ?? .null, keyObject: keyObject)
        }
    }

    @Test("HMAC keys shorter than the hash output are refused by the default policy and verify only when allowed")
    func shortHMACKeyGroup() throws {
        let root = try Fixtures.object(Fixtures.wycheproofDirectory.appendingPathComponent("hmac_sha256_test.json"))
        let group = try #require(root.array("testGroups").compactMap(\.objectValue).first { $0.int("keySize") == 128 && $0.int("tagSize") == 256 })
        let test = try #require(group.array("tests").compactMap(\.objectValue).first { $0.string("result") == "valid" })
        let key = JWK(symmetricKey: hexBytes(try #require(test.string("key"))))
        expectCode(.weakKey) { _ = try JWSVerificationPolicy.default.algorithm(named: "HS256", for: key) }
        let lenient = JWSVerificationPolicy(allowsShortHMACKeys: true)
        let outcome = Wycheproof.primitiveVerify(
            key: key, algorithm: .hs256, policy: lenient,
            message: hexBytes(test.string("msg") ?? ""), signature: hexBytes(test.string("tag") ?? ""))
        #expect(outcome.accepted, "\(outcome.detail)")
    }

    @Test("a valid full-length tag cut to the truncated size is rejected")
    func truncatedTag() throws {
        let root = try Fixtures.object(Fixtures.wycheproofDirectory.appendingPathComponent("hmac_sha256_test.json"))
        let group = try #require(root.array("testGroups").compactMap(\.objectValue).first { $0.int("keySize") == 256 && $0.int("tagSize") == 128 })
        let test = try #require(group.array("tests").compactMap(\.objectValue).first { $0.string("result") == "valid" })
        let key = JWK(symmetricKey: hexBytes(try #require(test.string("key"))))
        let tag = hexBytes(try #require(test.string("tag")))
        #expect(tag.count == 16)
        let outcome = Wycheproof.primitiveVerify(
            key: key, algorithm: .hs256, policy: .default,
            message: hexBytes(test.string("msg") ?? ""), signature: tag)
        #expect(!outcome.accepted)
    }
}
