import Foundation
import Testing

@testable import JOSE

@Suite("Key use and key_ops")
struct KeyUsageTests {
    static func token() throws -> String {
        var signer = try TestKeys.pem("p256.pem")
        signer.algorithm = nil
        return try CompactJWS.sign(payload: "x", key: signer, algorithm: .es256)
    }

    @Test(
        "use other than sig, or key_ops without verify, is refused",
        arguments: [
            #""use":"enc""#, #""use":"other""#, #""key_ops":["encrypt"]"#, #""key_ops":["sign"]"#, #""key_ops":[]"#,
            #""use":"enc","key_ops":["verify"]"#,
        ])
    func refused(_ members: String) throws {
        let base = try TestKeys.jwk("p256.pub.jwk").publicJWK
        var object = JSONObject()
        for member in base where member.name != "use" { object[member.name] = member.value }
        let extra = try JSONParser.parseObject(Array("{\(members)}".utf8), what: "test")
        for member in extra { object[member.name] = member.value }
        let key = try JWK(jsonObject: object)
        expectCode(.keyUsageNotPermitted, "\(members)") { try CompactJWS(try Self.token()).verify(with: key) }
    }

    @Test("use sig and key_ops with verify are permitted", arguments: [#""use":"sig""#, #""key_ops":["verify"]"#, #""key_ops":["sign","verify"]"#, ""])
    func permitted(_ members: String) throws {
        var object = try TestKeys.jwk("p256.pub.jwk").publicJWK
        object["use"] = nil
        if !members.isEmpty {
            for member in try JSONParser.parseObject(Array("{\(members)}".utf8), what: "test") { object[member.name] = member.value }
        }
        try CompactJWS(try Self.token()).verify(with: JWK(jsonObject: object))
    }

    @Test("a signing key whose key_ops lack sign cannot sign")
    func signing() throws {
        var key = try TestKeys.jwk("hmac.jwk")
        key.keyOperations = ["verify"]
        expectCode(.keyUsageNotPermitted) { _ = try CompactJWS.sign(payload: "x", key: key, algorithm: .hs256) }
    }
}
