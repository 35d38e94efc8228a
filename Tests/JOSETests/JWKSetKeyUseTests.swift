import Foundation
import Testing

@testable import JOSE

@Suite("JWK Set key selection ignores keys that do not permit verification")
struct JWKSetKeyUseTests {
    static func member(_ jwk: String, use: String) throws -> String {
        // The public JWK with its `use` replaced and a shared kid.
        var object = try JSONParser.parseObject(Array(jwk.utf8), what: "test key")
        object["use"] = .string(use)
        object["kid"] = "shared"
        object["alg"] = nil
        return object.jsonString()
    }

    @Test("a `use: enc` key sharing the kid of the signing key is not ambiguous and is never chosen")
    func encKeySharingKid() throws {
        let encKey = try Self.member(TestKeys.text("rsa3072.pub.jwk"), use: "enc")
        let sigKey = try Self.member(TestKeys.text("rsa2048.pub.jwk"), use: "sig")
        let set = try JWKSet(json: #"{"keys":[\#(encKey),\#(sigKey)]}"#)
        #expect(set.keys.count == 2)
        var signer = try TestKeys.pem("rsa2048.pem")
        signer.keyID = "shared"
        let token = try CompactJWS.sign(payload: "x", key: signer, algorithm: .rs256)
        let chosen = try CompactJWS(token).verify(with: set)
        #expect(chosen.use == "sig")
        #expect(chosen.sizeInBits == 2048)
    }

    @Test("a kid naming only a `use: enc` key fails with key_usage_not_permitted")
    func onlyEncKey() throws {
        let encKey = try Self.member(TestKeys.text("rsa2048.pub.jwk"), use: "enc")
        let set = try JWKSet(json: #"{"keys":[\#(encKey)]}"#)
        #expect(throws: JOSEError.self) { try set.selectKey(keyID: "shared", algorithm: .rs256) }
        do {
            _ = try set.selectKey(keyID: "shared", algorithm: .rs256)
        } catch let error as JOSEError {
            #expect(error.code == .keyUsageNotPermitted)
        }
    }
}
