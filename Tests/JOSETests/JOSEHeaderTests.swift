import Testing

@testable import JOSE

/// The protected header's registered members, recognised by their packed bytes.
@Suite("JOSE header members")
struct JOSEHeaderTests {
    @Test("each registered name is recognised, and near misses are not")
    func registeredNames() {
        let expected: [(String, RegisteredHeader)] = [
            ("alg", .alg), ("kid", .kid), ("b64", .b64), ("crit", .crit), ("typ", .typ), ("cty", .stringValued),
            ("jku", .stringValued), ("x5u", .stringValued), ("x5t", .stringValued), ("x5t#S256", .stringValued),
        ]
        for (name, kind) in expected { #expect(RegisteredHeader(name) == kind, "\(name)") }
        let misses = [
            "", "al", "algx", "ALG", "\0alg", "alg\0", "\0\0\0\0\0alg", "kid ", "x5t#S25", "x5t#S2566", "crit\0", "cri",
            "jwk", "x5c", "enc", "zip", "b6", "b644", "typ\0\0\0\0\0",
        ]
        for name in misses { #expect(RegisteredHeader(name) == nil, "\(name.debugDescription)") }
    }

    @Test(
        "registered members of the wrong type are refused, naming the member",
        arguments: [("kid", "7"), ("typ", "true"), ("x5t#S256", "[]"), ("alg", "null"), ("b64", "\"false\"")])
    func wrongTypes(name: String, value: String) throws {
        let header = name == "alg" ? "{\"alg\":\(value)}" : "{\"alg\":\"HS256\",\"\(name)\":\(value)}"
        let token = Base64URL.encode(header) + ".e30.AAAA"
        do {
            _ = try CompactJWS(token)
            Issue.record("accepted \(header)")
        } catch let error as JOSEError {
            #expect(error.code == .invalidHeader)
            #expect(error.member == name)
        }
    }

    @Test("algorithm, key ID, type, crit and b64 read at parse time agree with the members")
    func storedMembers() throws {
        let cases = [
            #"{"alg":"RS256","kid":"k-1"}"#, #"{"kid":"only"}"#, #"{"alg":"ES256","crit":["b64"],"b64":false}"#,
            #"{"alg":"EdDSA","b64":true}"#, #"{"alg":"HS256","\u0061lg2":"x","crit":null}"#,
            #"{"alg":"RS256","typ":"at+jwt"}"#, #"{"alg":"A128KW","enc":"A128GCM"}"#, #"{"alg":"none","typ":"JWT"}"#,
        ]
        for text in cases {
            let members = try JSONParser.parseObject(Array(text.utf8), what: "header")
            let header = try JOSEHeader(members: members)
            #expect(header.algorithmName == members["alg"]?.stringValue, "\(text)")
            #expect(header.keyID == members["kid"]?.stringValue, "\(text)")
            #expect(header.type == members["typ"]?.stringValue, "\(text)")
            #expect(header.signatureAlgorithm == members["alg"]?.stringValue.flatMap { try? JWSAlgorithm(headerValue: $0) }, "\(text)")
            #expect(header.hasCritical == (members["crit"] != nil), "\(text)")
            #expect(header.b64 == members["b64"]?.boolValue, "\(text)")
            // Equality and hashing follow the members: a header parsed again is equal, another one is not.
            let again = try JOSEHeader(members: try JSONParser.parseObject(Array(text.utf8), what: "header"))
            #expect(header == again && header.hashValue == again.hashValue, "\(text)")
            #expect(header != (try JOSEHeader(members: JSONObject([("alg", .string("PS512"))]))), "\(text)")
        }
    }
}
