import Foundation

@testable import JOSE

/// Checks every example in `Fixtures/vectors/rfc`: each serialization a file
/// carries (compact, flattened, general; every signature of a general JWS) is
/// one "vector". Deterministic examples are also re-signed and compared byte
/// for byte.
enum RFCVectors {
    struct FileResult: Sendable {
        var file: String
        var vectors = 0
        var resigned = 0
        var wrong: [String] = []
    }

    static let files: [String] = Fixtures.jsonFiles(in: Fixtures.rfcDirectory)

    static let results: [String: FileResult] = {
        var out: [String: FileResult] = [:]
        for file in files { out[file] = run(file: file) }
        return out
    }()

    static func load(_ file: String) throws -> JSONObject {
        try Fixtures.object(Fixtures.rfcDirectory.appendingPathComponent(file))
    }

    static func key(_ value: JSONValue?) throws -> JWK {
        guard let object = value?.objectValue else { throw JOSEError(.invalidKey, "no key in the fixture") }
        return try JWK(jsonObject: object)
    }

    static func run(file: String) -> FileResult {
        var result = FileResult(file: file)
        func check(_ what: String, expectValid: Bool, _ body: () throws -> Void) {
            result.vectors += 1
            do {
                try body()
                if !expectValid { result.wrong.append("\(what): accepted but expected invalid") }
            } catch {
                if expectValid { result.wrong.append("\(what): \(error)") }
            }
        }
        let vector: JSONObject
        do { vector = try load(file) } catch {
            result.wrong.append("cannot read: \(error)")
            return result
        }
        let expectValid = vector.string("expected") == "valid"
        let unencoded = vector["b64"]?.boolValue == false
        let policy = JWSVerificationPolicy(allowsUnencodedPayload: unencoded)
        let payload = Array((vector.string("payload") ?? "").utf8)
        let detached = vector["detached_payload"]?.boolValue == true

        if let keys = vector.object("jwks")?.array("keys") {
            // RFC 7520 4.8: each signature with its own key, in order.
            guard let general = vector.object("general") else { result.wrong.append("no general serialization"); return result }
            for (index, keyValue) in keys.enumerated() {
                check("general signature \(index)", expectValid: expectValid) {
                    let jws = try JSONSerializedJWS(json: JSONValue.object(general).jsonString(), limits: policy.limits)
                    try jws.verify(signatureAt: index, with: try key(keyValue), policy: policy)
                }
            }
            return result
        }

        let verifier: JWK
        do { verifier = try key(vector["jwk"]) } catch {
            // A.5 (`none`) has no key: any key must refuse it.
            check("compact (no key)", expectValid: expectValid) {
                try CompactJWS(vector.string("token") ?? "").verify(with: JWK(symmetricKey: [UInt8](repeating: 1, count: 32)))
            }
            return result
        }
        if let token = vector.string("token") {
            check("compact", expectValid: expectValid) {
                try CompactJWS(token, detachedPayload: detached ? payload : nil, limits: policy.limits).verify(with: verifier, policy: policy)
            }
        }
        for form in ["flattened", "general"] {
            guard let object = vector.object(form) else { continue }
            check(form, expectValid: expectValid) {
                let hasPayload = object["payload"] != nil
                let jws = try JSONSerializedJWS(
                    json: JSONValue.object(object).jsonString(), detachedPayload: hasPayload ? nil : payload,
                    limits: policy.limits)
                guard jws.payload == payload else { throw JOSEError(.malformedToken, "payload differs from the fixture's") }
                try jws.verify(with: verifier, policy: policy)
            }
        }
        if vector["reproducible"]?.boolValue == true, expectValid, vector["jwk_private"] != nil || verifier.isPrivate {
            do {
                try resign(vector, verifier: verifier, payload: payload, unencoded: unencoded, into: &result)
            } catch {
                result.wrong.append("re-sign: \(error)")
            }
        }
        return result
    }

    /// Re-signs every signing input the file holds with the private key and compares signatures;
    /// when the protected header is in this library's compact form, compares the whole token.
    static func resign(_ vector: JSONObject, verifier: JWK, payload: [UInt8], unencoded: Bool, into result: inout FileResult) throws {
        let signer = try vector["jwk_private"].map { try key($0) } ?? verifier
        let payloadSegment = unencoded ? payload : Array(Base64URL.encode(payload).utf8)
        var inputs: [(what: String, protected: String, unprotectedAlg: String?, signature: String)] = []
        if let token = vector.string("token") {
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            inputs.append(("compact", parts[0], nil, parts[2]))
        }
        for form in ["flattened", "general"] {
            guard let object = vector.object(form) else { continue }
            let entries = object["signatures"]?.arrayValue?.compactMap(\.objectValue) ?? [object]
            for entry in entries {
                inputs.append((form, entry.string("protected") ?? "", entry.object("header")?.string("alg"), entry.string("signature") ?? ""))
            }
        }
        for input in inputs {
            let header =
                input.protected.isEmpty
                ? JSONObject()
                : try JSONParser.parseObject(try Base64URL.decode(input.protected), what: "header")
            let name = header.string("alg") ?? input.unprotectedAlg ?? ""
            let algorithm = try JWSAlgorithm(headerValue: name)
            let signingInput = Array(input.protected.utf8) + [UInt8(ascii: ".")] + payloadSegment
            let signature = try Signer.sign(input: signingInput, key: signer, algorithm: algorithm)
            result.resigned += 1
            if Base64URL.encode(signature) != input.signature { result.wrong.append("re-sign \(input.what): signature differs") }
        }
        // Whole-token comparison through the public signing API, where the header text is canonical.
        if let token = vector.string("token"), !(vector["detached_payload"]?.boolValue ?? false) {
            let protected = String(token.split(separator: ".")[0])
            let header = try JSONParser.parseObject(try Base64URL.decode(protected), what: "header")
            if Base64URL.encode(header.jsonString()) == protected, header.names.first == "alg" {
                var rest = header
                rest["alg"] = nil
                var key = signer
                key.algorithm = nil
                key.keyID = nil
                let algorithm = try JWSAlgorithm(headerValue: header.string("alg") ?? "")
                let signed = try CompactJWS.sign(payload: payload, header: rest, key: key, algorithm: algorithm)
                result.resigned += 1
                if signed != token { result.wrong.append("re-sign compact via CompactJWS.sign: token differs") }
            }
        }
    }
}
