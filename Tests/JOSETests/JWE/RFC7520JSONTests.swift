import Foundation
import Testing

@testable import JOSE

/// RFC 7520 §5 (the JOSE cookbook's encryption examples) in every serialization the
/// cookbook gives: compact, flattened JSON and general JSON. Files: the
/// `ietf-jose/cookbook` repository's `jwe/` folder (public domain, the source of
/// RFC 7520), byte-for-byte, under `Fixtures/vectors/rfc7520-jwe/`.
///
/// §5.1 (RSA1_5), §5.3 (PBES2) and §5.9 (`zip`) are refused by design; §5.13 has an
/// RSA1_5 recipient (refused) and decrypts for its ECDH-ES+A256KW and A256GCMKW recipients.
@Suite("JWE: RFC 7520 §5 examples, compact and JSON serializations")
struct RFC7520JSONTests {
    static let directory = Fixtures.directory.appendingPathComponent("vectors/rfc7520-jwe")

    static func example(_ prefix: String) throws -> JSONObject {
        let name = try #require(Fixtures.jsonFiles(in: directory).first { $0.hasPrefix(prefix + ".") })
        return try Fixtures.object(directory.appendingPathComponent(name))
    }

    static func keys(_ example: JSONObject) throws -> [JWK] {
        let input = try #require(example["input"]?.objectValue)
        if let list = input["key"]?.arrayValue { return try list.map { try JWK(jsonObject: try #require($0.objectValue)) } }
        if let key = input["key"]?.objectValue { return [try JWK(jsonObject: key)] }
        return [JWK(symmetricKey: Array(repeating: 1, count: 16))]
    }

    /// The example's serializations: (form, text).
    static func forms(_ example: JSONObject) -> [(String, String)] {
        guard let output = example["output"]?.objectValue else { return [] }
        var forms: [(String, String)] = []
        if let compact = output["compact"]?.stringValue { forms.append(("compact", compact)) }
        for name in ["json_flat", "json"] {
            if let object = output[name]?.objectValue { forms.append((name, JSONValue.object(object).jsonString())) }
        }
        return forms
    }

    static func decrypt(_ form: String, _ text: String, key: JWK) throws -> String {
        if form == "compact" { return try CompactJWE(text).decryptString(with: key) }
        return try JSONSerializedJWE(json: text).decryptString(with: key)
    }

    @Test("each example decrypts in each serialization", arguments: ["5_2", "5_4", "5_5", "5_6", "5_7", "5_8", "5_10", "5_11", "5_12"])
    func decrypts(_ section: String) throws {
        let example = try Self.example(section)
        let plaintext = try #require(example["input"]?.objectValue?["plaintext"]?.stringValue)
        let key = try #require(try Self.keys(example).first)
        let forms = Self.forms(example)
        #expect(forms.count >= 2)
        for (form, text) in forms {
            #expect(try Self.decrypt(form, text, key: key) == plaintext, "\(section) \(form)")
            if form != "compact" {
                // Through a key set too, selected by kid.
                let set = try JWKSet(keys: [JWK.generate(.ec(.p256)), key])
                #expect(try String(decoding: JSONSerializedJWE(json: text).decrypt(with: set), as: UTF8.self) == plaintext)
            }
        }
    }

    @Test("§5.10: the aad member is authenticated")
    func aad() throws {
        let example = try Self.example("5_10")
        let key = try #require(try Self.keys(example).first)
        var object = try #require(example["output"]?.objectValue?["json_flat"]?.objectValue)
        let jwe = try JSONSerializedJWE(json: JSONValue.object(object).jsonString())
        #expect(jwe.additionalAuthenticatedData != nil)
        object["aad"] = .string(Base64URL.encode(Array("something else".utf8)))
        expectCode(.decryptionFailed) { _ = try JSONSerializedJWE(json: JSONValue.object(object).jsonString()).decrypt(with: key) }
        object["aad"] = nil
        expectCode(.decryptionFailed) { _ = try JSONSerializedJWE(json: JSONValue.object(object).jsonString()).decrypt(with: key) }
    }

    @Test("§5.11, §5.12: unprotected members are not authenticated but the disjointness rule holds")
    func unprotected() throws {
        let example = try Self.example("5_12")
        var object = try #require(example["output"]?.objectValue?["json_flat"]?.objectValue)
        // 5.12 has no protected header: the enc sits in "unprotected"; a duplicate in "header" is refused.
        #expect(object["unprotected"]?.objectValue?["enc"] != nil)
        object["header"] = .object(["enc": .string("A128GCM")])
        expectCode(.invalidHeader) { _ = try JSONSerializedJWE(json: JSONValue.object(object).jsonString()) }
    }

    @Test("§5.13: three recipients; the RSA1_5 one is refused, the others decrypt")
    func multipleRecipients() throws {
        let example = try Self.example("5_13")
        let plaintext = try #require(example["input"]?.objectValue?["plaintext"]?.stringValue)
        let keys = try Self.keys(example)
        try #require(keys.count == 3)
        let text = try #require(Self.forms(example).first?.1)
        let jwe = try JSONSerializedJWE(json: text)
        #expect(jwe.recipients.map(\.keyAlgorithmName) == ["RSA1_5", "ECDH-ES+A256KW", "A256GCMKW"])
        expectCode(.unsupportedAlgorithm) { _ = try jwe.decrypt(with: keys[0]) }
        #expect(try jwe.decryptString(with: keys[1]) == plaintext)
        #expect(try jwe.decryptString(with: keys[2]) == plaintext)
        #expect(try String(decoding: jwe.decrypt(recipientAt: 2, with: keys[2]), as: UTF8.self) == plaintext)
        expectCode(.keyAlgorithmMismatch) { _ = try jwe.decrypt(recipientAt: 1, with: keys[2]) }
        // A key set holding all three: the RSA1_5 recipient fails, the next one decrypts.
        #expect(try String(decoding: jwe.decrypt(with: JWKSet(keys: keys)), as: UTF8.self) == plaintext)
        // A recipient limit below three refuses the document.
        expectCode(.limitExceeded) { _ = try JSONSerializedJWE(json: text, limits: JOSELimits(maxRecipients: 2)) }
    }

    @Test("refused by design: §5.1 RSA1_5, §5.3 PBES2, §5.9 zip", arguments: ["5_1", "5_3", "5_9"])
    func refused(_ section: String) throws {
        let example = try Self.example(section)
        let key = try #require(try Self.keys(example).first)
        for (form, text) in Self.forms(example) {
            expectCode(.unsupportedAlgorithm, "\(section) \(form)") { _ = try Self.decrypt(form, text, key: key) }
        }
    }

    @Test("malformed JSON serializations are refused with typed errors")
    func malformed() throws {
        let example = try Self.example("5_8")
        let object = try #require(example["output"]?.objectValue?["json_flat"]?.objectValue)
        func variant(_ change: (inout JSONObject) -> Void) -> String {
            var copy = object
            change(&copy)
            return JSONValue.object(copy).jsonString()
        }
        expectCode(.malformedToken) { _ = try JSONSerializedJWE(json: variant { $0["ciphertext"] = nil }) }
        expectCode(.malformedToken) { _ = try JSONSerializedJWE(json: variant { $0["iv"] = .integer(1) }) }
        expectCode(.invalidBase64URL) { _ = try JSONSerializedJWE(json: variant { $0["tag"] = .string("a=") }) }
        expectCode(.malformedToken) { _ = try JSONSerializedJWE(json: variant { $0["recipients"] = .array([]) }) }
        expectCode(.invalidHeader) { _ = try JSONSerializedJWE(json: variant { $0["unprotected"] = .object(["alg": .string("A128KW")]) }) }
        expectCode(.unsupportedAlgorithm) { _ = try JSONSerializedJWE(json: variant { $0["unprotected"] = .object(["zip": .string("DEF")]) }) }
        expectCode(.limitExceeded) { _ = try JSONSerializedJWE(json: variant { _ in }, limits: JOSELimits(maxTokenBytes: 100)) }
        // crit outside the protected header.
        let key = try #require(try Self.keys(example).first)
        expectCode(.invalidHeader) {
            _ = try JSONSerializedJWE(json: variant { $0["unprotected"] = .object(["crit": .array([.string("exp")]), "exp": .integer(1)]) }).decrypt(with: key)
        }
    }
}
