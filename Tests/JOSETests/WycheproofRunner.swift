import Foundation

@testable import JOSE

/// Runs every Wycheproof file in `Fixtures/vectors/wycheproof/testvectors_v1`
/// through this library and compares with the expected `result`.
///
/// Expected outcomes:
/// * `valid` → must verify; `invalid` → must be rejected.
/// * `acceptable` → this suite's choice is **reject** (a strict JWS verifier):
///   acceptable vectors are treated as `invalid`. (They are the RSA PKCS#1
///   "missing NULL in DigestInfo" encodings; libcrypto rejects them.)
/// * HMAC groups whose `tagSize` is below the hash output → must be rejected
///   whatever `result` says: JWS never truncates a MAC.
/// * HMAC keys shorter than the hash output → verified at the primitive level
///   under a policy with `allowsShortHMACKeys`; the default policy must refuse
///   the key with `.weakKey` (checked for each such vector).
/// * RSA keys under 2048 bits → the same treatment with `minimumRSAKeyBits`
///   (the copied files hold none at the primitive level).
enum Wycheproof {
    /// Vectors where this library deliberately disagrees with Wycheproof's `result`:
    /// `file#tcId` → the outcome this suite requires instead (`nil` = must verify,
    /// otherwise the exact error code), and why. Each is counted as "overridden".
    static let overrides: [String: (code: JOSEError.Code?, reason: String)] = [
        "json_web_signature_test.json#372": (
            .invalidBase64URL,
            "a '?' is inserted into the header segment; Wycheproof calls it valid because the MAC covers the literal bytes, but strict Base64URL is a product requirement"
        ),
        "json_web_signature_test.json#373": (
            .invalidBase64URL,
            "a '?' is inserted into the payload segment; Wycheproof calls it valid because the MAC covers the literal bytes, but strict Base64URL is a product requirement"
        ),
        "json_web_signature_test.json#346": (
            .keyAlgorithmMismatch,
            "RFC 7520 Figure 20 (PS384) verified with a key whose \"alg\" is PS256; a key's alg restricts it (project rule). Verifies once alg is removed"
        ),
        "json_web_signature_test.json#350": (
            .keyAlgorithmMismatch,
            "as #346, with key_ops; a key's alg restricts it (project rule). Verifies once alg is removed"
        ),
        "json_web_signature_test.json#347": (
            .keyAlgorithmMismatch,
            "RFC 7520 Figure 27 (ES512) verified with a key whose \"alg\" is \"ES521\" (not a JWS algorithm); a key's alg restricts it (project rule). Verifies once alg is removed"
        ),
        "json_web_signature_test.json#351": (
            .keyAlgorithmMismatch,
            "as #347, with key_ops; a key's alg restricts it (project rule). Verifies once alg is removed"
        ),
        "json_web_signature_test.json#367": (
            nil,
            "'invalidBase64Padding' but the jws is byte-identical to tcId 357 (valid): the padding is absent from the data, so the vector contradicts #357"
        ),
        "json_web_signature_test.json#370": (
            nil,
            "'invalidBase64PaddingInPayload' but the jws is byte-identical to tcId 357 (valid): the padding is absent from the data, so the vector contradicts #357"
        ),
    ]

    struct FileResult: Sendable {
        var file: String
        var declared = 0
        var vectors = 0
        var wrong: [String] = []
        var skipped = 0
        var overridden = 0
        var acceptableSeen = 0
        var acceptableAccepted = 0

        var line: String {
            "wycheproof \(file): \(vectors) vectors, \(wrong.count) wrong, \(skipped) skipped, \(overridden) overridden"
        }
    }

    static let files: [String] = Fixtures.jsonFiles(in: Fixtures.wycheproofDirectory)

    /// Computed once, shared by the per-file tests and the summary test.
    static let results: [String: FileResult] = {
        var out: [String: FileResult] = [:]
        for file in files { out[file] = run(file: file) }
        return out
    }()

    static func run(file: String) -> FileResult {
        var result = FileResult(file: file)
        let root: JSONObject
        do { root = try Fixtures.object(Fixtures.wycheproofDirectory.appendingPathComponent(file)) } catch {
            result.wrong.append("cannot read the file: \(error)")
            return result
        }
        result.declared = root.int("numberOfTests") ?? -1
        let schema = root.string("schema") ?? ""
        for groupValue in root.array("testGroups") {
            guard let group = groupValue.objectValue else { continue }
            let tests = group.array("tests").compactMap(\.objectValue)
            switch schema {
            case "ecdsa_p1363_verify_schema_v1.json", "rsassa_pkcs1_verify_schema_v1.json", "rsassa_pss_verify_schema_v1.json",
                "eddsa_verify_schema_v1.json":
                runSignatureGroup(group, tests: tests, schema: schema, into: &result)
            case "mac_test_schema_v1.json":
                runMACGroup(group, tests: tests, algorithmName: root.string("algorithm") ?? "", into: &result)
            case "json_web_signature_schema_v1.json", "json_web_key_schema_v1.json":
                runJOSEGroup(group, tests: tests, into: &result)
            default:
                result.skipped += tests.count
            }
        }
        return result
    }

    // MARK: Primitive files

    static func algorithm(forHash sha: String, family: JWSAlgorithm.Family) -> JWSAlgorithm? {
        let table: [JWSAlgorithm.Family: [String: JWSAlgorithm]] = [
            .rsaPKCS1: ["SHA-256": .rs256, "SHA-384": .rs384, "SHA-512": .rs512],
            .rsaPSS: ["SHA-256": .ps256, "SHA-384": .ps384, "SHA-512": .ps512],
            .hmac: ["HMACSHA256": .hs256, "HMACSHA384": .hs384, "HMACSHA512": .hs512],
        ]
        return table[family]?[sha]
    }

    /// The EC JWK from the group's `publicKeyJwk`, or from `wx`/`wy` (hex, normalised to the field size).
    static func ecKey(_ group: JSONObject) throws -> (JWK, JWSAlgorithm) {
        let curves: [String: JWK.Curve] = ["secp256r1": .p256, "secp384r1": .p384, "secp521r1": .p521]
        guard let publicKey = group.object("publicKey"), let curve = curves[publicKey.string("curve") ?? ""] else {
            throw JOSEError(.unsupportedKey, "curve")
        }
        if let jwk = group.object("publicKeyJwk") { return (try JWK(jsonObject: jwk), curve.algorithm) }
        func coordinate(_ hex: String) throws -> String {
            var bytes = Array(hexBytes(hex).drop(while: { $0 == 0 }))
            guard bytes.count <= curve.coordinateSize else { throw JOSEError(.invalidKey, "coordinate too long") }
            bytes = [UInt8](repeating: 0, count: curve.coordinateSize - bytes.count) + bytes
            return Base64URL.encode(bytes)
        }
        let object: JSONObject = [
            "kty": "EC", "crv": .string(curve.rawValue),
            "x": .string(try coordinate(publicKey.string("wx") ?? "")),
            "y": .string(try coordinate(publicKey.string("wy") ?? "")),
        ]
        return (try JWK(jsonObject: object), curve.algorithm)
    }

    static func runSignatureGroup(_ group: JSONObject, tests: [JSONObject], schema: String, into result: inout FileResult) {
        let key: JWK
        let algorithm: JWSAlgorithm
        do {
            switch schema {
            case "ecdsa_p1363_verify_schema_v1.json":
                (key, algorithm) = try ecKey(group)
            case "rsassa_pkcs1_verify_schema_v1.json":
                guard let alg = Self.algorithm(forHash: group.string("sha") ?? "", family: .rsaPKCS1),
                    let jwk = group.object("keyJwk") ?? group.object("publicKeyJwk")
                else { result.skipped += tests.count; return }
                (key, algorithm) = (try JWK(jsonObject: jwk), alg)
            case "rsassa_pss_verify_schema_v1.json":
                // Only the JWS parameter sets exist in JWS: MGF1 hash = hash, salt = hash length.
                guard let alg = Self.algorithm(forHash: group.string("sha") ?? "", family: .rsaPSS),
                    group.string("mgf") == "MGF1", group.string("mgfSha") == group.string("sha"),
                    group.int("sLen") == alg.digest?.outputLength,
                    let jwk = group.object("publicKeyJwk")
                else { result.skipped += tests.count; return }
                (key, algorithm) = (try JWK(jsonObject: jwk), alg)
            default:
                guard let jwk = group.object("publicKeyJwk") else { result.skipped += tests.count; return }
                (key, algorithm) = (try JWK(jsonObject: jwk), .eddsa)
            }
        } catch {
            // A key this library refuses: every vector of the group counts as rejected.
            for test in tests {
                result.vectors += 1
                record(test, accepted: false, detail: "key refused: \(error)", into: &result)
            }
            return
        }
        var policy = JWSVerificationPolicy.default
        if key.keyType == .rsa, key.sizeInBits < policy.minimumRSAKeyBits {
            // Weak RSA keys: primitive-level check with a lowered minimum; the default must refuse the key.
            if joseCode({ _ = try JWSVerificationPolicy.default.algorithm(named: algorithm.rawValue, for: key) }) != .weakKey {
                result.wrong.append("group with a \(key.sizeInBits)-bit RSA key: the default policy does not refuse it with weakKey")
            }
            policy.minimumRSAKeyBits = key.sizeInBits
        }
        for test in tests {
            result.vectors += 1
            let message = hexBytes(test.string("msg") ?? "")
            let signature = hexBytes(test.string("sig") ?? "")
            let outcome = primitiveVerify(key: key, algorithm: algorithm, policy: policy, message: message, signature: signature)
            record(test, accepted: outcome.accepted, detail: outcome.detail, into: &result)
        }
    }

    static func runMACGroup(_ group: JSONObject, tests: [JSONObject], algorithmName: String, into result: inout FileResult) {
        guard let algorithm = Self.algorithm(forHash: algorithmName, family: .hmac), let digest = algorithm.digest else {
            result.skipped += tests.count
            return
        }
        let truncated = (group.int("tagSize") ?? 0) < digest.outputLength * 8
        for test in tests {
            result.vectors += 1
            let keyBytes = hexBytes(test.string("key") ?? "")
            let key = JWK(symmetricKey: keyBytes)
            var policy = JWSVerificationPolicy.default
            if keyBytes.count < digest.outputLength {
                let code = joseCode({ _ = try JWSVerificationPolicy.default.algorithm(named: algorithm.rawValue, for: key) })
                if code != .weakKey {
                    result.wrong.append(
                        "tcId \(test.int("tcId") ?? -1): a \(keyBytes.count)-byte \(algorithm) key is not refused with weakKey by default (got \(String(describing: code)))"
                    )
                }
                policy.allowsShortHMACKeys = true
            }
            let outcome = primitiveVerify(
                key: key, algorithm: algorithm, policy: policy,
                message: hexBytes(test.string("msg") ?? ""), signature: hexBytes(test.string("tag") ?? ""))
            if truncated {
                // JWS never truncates: a shortened tag is rejected whatever the vector says.
                if outcome.accepted { result.wrong.append("tcId \(test.int("tcId") ?? -1): a truncated \(algorithm) tag was accepted") }
            } else {
                record(test, accepted: outcome.accepted, detail: outcome.detail, into: &result)
            }
        }
    }

    /// The library's verification path below the JWS parser: the policy picks
    /// the algorithm for the key, then the primitive checks the signature.
    static func primitiveVerify(
        key: JWK, algorithm: JWSAlgorithm, policy: JWSVerificationPolicy,
        message: [UInt8], signature: [UInt8]
    ) -> (accepted: Bool, detail: String) {
        do {
            let chosen = try policy.algorithm(named: algorithm.rawValue, for: key)
            let valid = try signature.withUnsafeBytes { sig in
                try message.withUnsafeBytes { msg in try SignatureVerifier.isValid(signature: sig, input: msg, key: key, algorithm: chosen) }
            }
            return (valid, valid ? "accepted" : "signature rejected")
        } catch {
            return (false, "threw \(error)")
        }
    }

    // MARK: JOSE-level files

    static func runJOSEGroup(_ group: JSONObject, tests: [JSONObject], into result: inout FileResult) {
        let keyObject = group.object("public") ?? group.object("private") ?? JSONObject()
        for test in tests {
            result.vectors += 1
            let tcId = test.int("tcId") ?? -1
            var thrown: JOSEError? = nil
            var other: (any Error)? = nil
            do {
                try verifyJOSE(test["jws"] ?? .null, keyObject: keyObject)
            } catch let error as JOSEError {
                thrown = error
            } catch {
                other = error
            }
            if let override = overrides["\(result.file)#\(tcId)"] {
                result.overridden += 1
                if thrown?.code != override.code || other != nil {
                    result.wrong.append(
                        "tcId \(tcId) (override): expected \(override.code.map { "\($0)" } ?? "acceptance"), got \(thrown.map { "\($0)" } ?? other.map { "\($0)" } ?? "acceptance")"
                    )
                }
                if override.code == .keyAlgorithmMismatch {
                    // The signature itself must be good: without the key's alg it verifies.
                    var unrestricted = keyObject
                    unrestricted["alg"] = nil
                    if (try? verifyJOSE(test["jws"] ?? .null, keyObject: unrestricted)) == nil {
                        result.wrong.append("tcId \(tcId) (override): does not verify even without the key's alg")
                    }
                }
                continue
            }
            let detail = thrown.map { "threw \($0)" } ?? other.map { "threw \($0)" } ?? "accepted"
            record(test, accepted: thrown == nil && other == nil, detail: detail, into: &result)
        }
    }

    /// Verifies a Wycheproof `jws` (compact string or JSON object) with the group's key or key set.
    static func verifyJOSE(_ jws: JSONValue, keyObject: JSONObject) throws {
        if keyObject["keys"] != nil {
            let set = try JWKSet(json: JSONValue.object(keyObject).jsonString())
            guard let compact = jws.stringValue else { throw JOSEError(.malformedToken, "JSON serialization with a key set") }
            try CompactJWS(compact).verify(with: set)
            return
        }
        let key = try JWK(jsonObject: keyObject)
        if let compact = jws.stringValue {
            try CompactJWS(compact).verify(with: key)
        } else {
            try JSONSerializedJWS(json: jws.jsonString()).verify(with: key)
        }
    }

    static func record(_ test: JSONObject, accepted: Bool, detail: String, into result: inout FileResult) {
        let expected = test.string("result") ?? "?"
        let tcId = test.int("tcId") ?? -1
        switch expected {
        case "valid":
            if !accepted { result.wrong.append("tcId \(tcId) (\(test.string("comment") ?? "")): valid but rejected: \(detail)") }
        case "acceptable":
            result.acceptableSeen += 1
            if accepted {
                result.acceptableAccepted += 1
                result.wrong.append("tcId \(tcId) (\(test.string("comment") ?? "")): acceptable, and this suite requires rejection, but it was accepted")
            }
        default:
            if accepted { result.wrong.append("tcId \(tcId) (\(test.string("comment") ?? "")): \(expected) but accepted") }
        }
    }
}
