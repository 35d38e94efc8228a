import Foundation
import Testing

@testable import JOSE

@Suite("crit (RFC 7515 §4.1.11)")
struct CriticalHeaderTests {
    static let key = JWK(symmetricKey: Array(repeating: 0x5A, count: 32))

    static func token(_ header: JSONObject) throws -> CompactJWS {
        try CompactJWS(CompactJWS.sign(payload: "x", header: header, key: key, algorithm: .hs256))
    }

    @Test("an unknown critical extension is refused, and accepted once declared understood")
    func unknown() throws {
        let jws = try Self.token(["crit": ["urn:example:ext"], "urn:example:ext": true])
        expectCode(.unsupportedCriticalHeader) { try jws.verify(with: Self.key) }
        try jws.verify(with: Self.key, policy: JWSVerificationPolicy(understoodCriticalHeaders: ["urn:example:ext"]))
        // Declaring some other name does not help.
        expectCode(.unsupportedCriticalHeader) {
            try jws.verify(with: Self.key, policy: JWSVerificationPolicy(understoodCriticalHeaders: ["other"]))
        }
    }

    @Test(
        "malformed crit is an invalid header",
        arguments: [
            "empty", "string", "object", "lists alg", "lists kid", "absent name", "non-string element", "duplicate names",
        ])
    func malformed(_ variant: String) throws {
        let header: JSONObject
        switch variant {
        case "empty": header = ["crit": []]
        case "string": header = ["crit": "urn:example:ext", "urn:example:ext": true]
        case "object": header = ["crit": ["urn:example:ext": true], "urn:example:ext": true]
        case "lists alg": header = ["crit": ["alg"]]
        case "lists kid": header = ["crit": ["kid"], "kid": "k"]
        case "absent name": header = ["crit": ["urn:example:ext"]]
        case "non-string element": header = ["crit": [1]]
        default: header = ["crit": ["urn:example:ext", "urn:example:ext"], "urn:example:ext": true]
        }
        let jws = try Self.token(header)
        let everything = JWSVerificationPolicy(understoodCriticalHeaders: ["urn:example:ext", "alg", "kid"])
        expectCode(.invalidHeader, "\(variant)") { try jws.verify(with: Self.key, policy: everything) }
    }

    @Test("crit in an unprotected header is refused")
    func unprotectedCrit() throws {
        let signed = try CompactJWS.sign(payload: "x", header: ["urn:example:ext": true], key: Self.key, algorithm: .hs256)
        let parts = signed.split(separator: ".").map(String.init)
        let json = #"{"payload":"\#(parts[1])","protected":"\#(parts[0])","header":{"crit":["urn:example:ext"]},"signature":"\#(parts[2])"}"#
        let jws = try JSONSerializedJWS(json: json)
        expectCode(.invalidHeader) {
            try jws.verify(signatureAt: 0, with: Self.key, policy: JWSVerificationPolicy(understoodCriticalHeaders: ["urn:example:ext"]))
        }
    }
}
