import Foundation
import Testing

@testable import JOSE

@Suite("RFC 7515, 7520, 7797 and 8037 JWS examples")
struct RFCVectorTests {
    @Test("every RFC example verifies (or is refused) as its fixture says", arguments: RFCVectors.files)
    func file(_ name: String) throws {
        let result = try #require(RFCVectors.results[name])
        #expect(result.vectors > 0)
        #expect(result.wrong.isEmpty, "\(name):\n\(result.wrong.joined(separator: "\n"))")
        let vector = try RFCVectors.load(name)
        // Reproducible examples with a private (or secret) key are re-signed; RFC 8037 A.5 gives only the public key.
        if vector["reproducible"]?.boolValue == true, vector.string("expected") == "valid", name != "rfc8037_A5_EdDSA_validation.json" {
            #expect(result.resigned > 0, "a reproducible example must be re-signed")
        }
    }

    @Test("all 17 files are present and the totals are printed")
    func summary() throws {
        #expect(RFCVectors.files.count == 17)
        var vectors = 0, wrong = 0, resigned = 0
        for name in RFCVectors.files {
            let result = try #require(RFCVectors.results[name])
            vectors += result.vectors
            wrong += result.wrong.count
            resigned += result.resigned
        }
        print("rfc: \(vectors) vectors, \(wrong) wrong")
        print("rfc: \(resigned) deterministic signatures re-created byte for byte")
        #expect(wrong == 0)
    }

    @Test("RFC 7515 A.5 (alg none) is refused with unsupportedAlgorithm, with a key and with a key set")
    func unsecured() throws {
        let vector = try RFCVectors.load("rfc7515_A5_unsecured.json")
        let jws = try CompactJWS(try #require(vector.string("token")))
        #expect(jws.signature.isEmpty)
        let key = try TestKeys.jwk("hmac.jwk")
        expectCode(.unsupportedAlgorithm) { try jws.verify(with: key) }
        expectCode(.unsupportedAlgorithm) { try jws.verify(with: JWKSet(keys: [key])) }
    }

    @Test("RFC 7797 b64=false verifies only when unencoded payloads are enabled")
    func unencodedPayload() throws {
        let vector = try RFCVectors.load("rfc7797_4_2_HS256_b64_false.json")
        let key = try RFCVectors.key(vector["jwk"])
        let payload = Array(try #require(vector.string("payload")).utf8)
        let token = try #require(vector.string("token"))
        let jws = try CompactJWS(token, detachedPayload: payload)
        expectCode(.unsupportedCriticalHeader) { try jws.verify(with: key) }
        try jws.verify(with: key, policy: JWSVerificationPolicy(allowsUnencodedPayload: true))
        let flattened = try #require(vector.object("flattened"))
        let json = try JSONSerializedJWS(json: JSONValue.object(flattened).jsonString())
        expectCode(.unsupportedCriticalHeader) { try json.verify(signatureAt: 0, with: key) }
        try json.verify(signatureAt: 0, with: key, policy: JWSVerificationPolicy(allowsUnencodedPayload: true))
        // The same bytes with b64 true (RFC 7797 4.1) give a different signature.
        #expect(json.signatures[0].signature != (try CompactJWS(try #require(RFCVectors.load("rfc7797_4_1_HS256_b64_true.json").string("token")))).signature)
    }

    @Test("RFC 7520 4.8: each signature verifies with its own key and not with the others")
    func multipleSignatures() throws {
        let vector = try RFCVectors.load("rfc7520_4_8_multiple_signatures.json")
        let keys = try vector.object("jwks").map { $0.array("keys") }.map { try $0.map { try RFCVectors.key($0) } } ?? []
        #expect(keys.count == 3)
        let jws = try JSONSerializedJWS(json: JSONValue.object(try #require(vector.object("general"))).jsonString())
        #expect(jws.signatures.count == 3)
        #expect(jws.signatures.map { $0.header.algorithmName ?? "" } == ["RS256", "ES512", "HS256"])
        for (index, key) in keys.enumerated() {
            try jws.verify(signatureAt: index, with: key)
            for other in jws.signatures.indices where other != index {
                expectCode(.keyAlgorithmMismatch) { try jws.verify(signatureAt: other, with: key) }
            }
        }
    }

    @Test("RFC 7520 4.5: a detached payload is required and must be the right one")
    func detached() throws {
        let vector = try RFCVectors.load("rfc7520_4_5_HS256_detached.json")
        let key = try RFCVectors.key(vector["jwk"])
        let token = try #require(vector.string("token"))
        let payload = Array(try #require(vector.string("payload")).utf8)
        try CompactJWS(token, detachedPayload: payload).verify(with: key)
        expectCode(.invalidSignature) { try CompactJWS(token, detachedPayload: payload + [0x20]).verify(with: key) }
        // Without the detached payload the empty segment is an empty payload, and the MAC does not match.
        expectCode(.invalidSignature) { try CompactJWS(token).verify(with: key) }
    }
}
