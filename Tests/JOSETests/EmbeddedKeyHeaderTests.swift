import Foundation
import Testing

@testable import JOSE

/// Header members that carry or point at keys (`jwk`, `jku`, `x5u`, `x5c`) must
/// never choose the verification key.
@Suite("Keys named by the token are never used")
struct EmbeddedKeyHeaderTests {
    /// RFC 7515 A.3's P-256 key plays the attacker: it is not in Keys/jwks.json.
    static func attacker() throws -> JWK {
        let vector = try RFCVectors.load("rfc7515_A3_ES256.json")
        return try RFCVectors.key(vector["jwk_private"])
    }

    static func realKeys() throws -> JWKSet { try JWKSet(json: TestKeys.text("jwks.json")) }

    @Test(
        "a token signed by an attacker key embedded as jwk fails against the real key set",
        arguments: ["real kid", "no kid", "attacker kid"])
    func embeddedJWK(_ variant: String) throws {
        let attacker = try Self.attacker()
        var header: JSONObject = ["jwk": .object(attacker.publicJWK)]
        switch variant {
        case "real kid": header["kid"] = "p256-LrOOpBAi"
        case "attacker kid": header["kid"] = "attacker"
        default: break
        }
        let token = try CompactJWS.sign(payload: #"{"sub":"admin"}"#, header: header, key: attacker, algorithm: .es256)
        let jws = try CompactJWS(token)
        #expect(jws.header.embeddedKeyReferences == ["jwk"])
        // The embedded key really did sign it.
        try jws.verify(with: JWK(jsonObject: try #require(jws.header.members["jwk"]?.objectValue)))
        let keys = try Self.realKeys()
        expectCode(variant == "attacker kid" ? .keyNotFound : .invalidSignature) { try jws.verify(with: keys) }
        expectCode(.invalidSignature) { try jws.verify(with: TestKeys.jwk("p256.pub.jwk")) }
    }

    @Test("jku, x5u and x5c are reported, never followed", arguments: ["jku", "x5u", "x5c"])
    func references(_ member: String) throws {
        let attacker = try Self.attacker()
        let value: JSONValue =
            member == "x5c"
            ? [JSONValue.string(try AlgorithmConfusionTests.der(ofPEM: TestKeys.text("rsa2048.cert.pem")).base64)]
            : "https://attacker.example/keys"
        let token = try CompactJWS.sign(payload: "x", header: [member: value, "kid": "p256-LrOOpBAi"], key: attacker, algorithm: .es256)
        let jws = try CompactJWS(token)
        #expect(jws.header.embeddedKeyReferences == [member])
        expectCode(.invalidSignature) { try jws.verify(with: Self.realKeys()) }
    }
}

extension Array where Element == UInt8 {
    var base64: String { Data(self).base64EncodedString() }
}
