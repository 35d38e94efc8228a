import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("claims request parameter")
struct ClaimsRequestTests {
    static let exampleJSON = #"{"id_token":{"cmiInstanceId":{"values":["inst-42"]},"acr":{"essential":true}},"userinfo":{"email":null}}"#

    static var example: ClaimsRequest {
        ClaimsRequest(
            idToken: ["cmiInstanceId": .values(["inst-42"]), "acr": .essential],
            userinfo: ["email": .voluntary])
    }

    @Test("the example encodes to the exact compact string and parses back")
    func example() throws {
        let request = Self.example
        #expect(request.jsonString == Self.exampleJSON)
        // Structurally equal to the JSON written by hand, whatever the member order.
        let handWritten = try JSONParser.parse(
            #"{"userinfo": {"email": null}, "id_token": {"acr": {"essential": true}, "cmiInstanceId": {"values": ["inst-42"]}}}"#)
        #expect(try JSONParser.parse(request.jsonString) == handWritten)
        let parsed = try ClaimsRequest.parse(Self.exampleJSON)
        #expect(parsed == request)
        #expect(parsed.jsonString == Self.exampleJSON)
        #expect(parsed.idToken["acr"] == .essential)
        #expect(parsed.userinfo["email"]?.isVoluntary == true)
    }

    @Test("it travels in the URL percent-encoded and comes back exactly")
    func inURL() throws {
        var request = Fixture.request()
        request.claims = Self.example
        let url = try request.authorizationURL(at: Fixture.endpoint)
        #expect(
            url.absoluteString.contains(
                "claims=%7B%22id_token%22%3A%7B%22cmiInstanceId%22%3A%7B%22values%22%3A%5B%22inst-42%22%5D%7D%2C%22acr%22%3A%7B%22essential%22%3Atrue%7D%7D%2C%22userinfo%22%3A%7B%22email%22%3Anull%7D%7D"
            ))
        let sent = try #require(try Fixture.query(url, "claims"))
        #expect(sent == Self.exampleJSON)
        #expect(try ClaimsRequest.parse(sent) == Self.example)
    }

    struct RoundTrip: Sendable, CustomTestStringConvertible {
        let requirement: ClaimRequirement
        let json: String
        var testDescription: String { json }
    }

    static let requirements: [RoundTrip] = [
        RoundTrip(requirement: .voluntary, json: #"{"userinfo":{"c":null}}"#),
        RoundTrip(requirement: .essential, json: #"{"userinfo":{"c":{"essential":true}}}"#),
        RoundTrip(requirement: ClaimRequirement(essential: false), json: #"{"userinfo":{"c":{"essential":false}}}"#),
        RoundTrip(requirement: .value("x y+z&é"), json: #"{"userinfo":{"c":{"value":"x y+z&é"}}}"#),
        RoundTrip(requirement: .value(42, essential: true), json: #"{"userinfo":{"c":{"essential":true,"value":42}}}"#),
        RoundTrip(
            requirement: .values([1, 2.5, true, nil, "s", ["n": [1]]]),
            json: #"{"userinfo":{"c":{"values":[1,2.5,true,null,"s",{"n":[1]}]}}}"#),
        RoundTrip(
            requirement: ClaimRequirement(essential: true, additionalMembers: JSONObject([("purpose", "KYC")])),
            json: #"{"userinfo":{"c":{"essential":true,"purpose":"KYC"}}}"#),
    ]

    @Test("every requirement form round-trips", arguments: requirements)
    func roundTrip(_ c: RoundTrip) throws {
        let request = ClaimsRequest(userinfo: ["c": c.requirement])
        #expect(request.jsonString == c.json)
        #expect(try ClaimsRequest.parse(c.json) == request)
    }

    @Test(
        "malformed claims requests are typed errors",
        arguments: [
            "", "[]", "{", #"{"id_token":[]}"#, #"{"other":{}}"#, #"{"id_token":{"a":1}}"#,
            #"{"id_token":{"a":{"essential":"yes"}}}"#, #"{"id_token":{"a":{"values":"x"}}}"#,
            #"{"id_token":{"a":null,"a":null}}"#, #"{"id_token":{},"id_token":{}}"#,
        ])
    func malformed(_ json: String) {
        #expect(errorCode { _ = try ClaimsRequest.parse(json) } == .invalidClaimsRequest)
    }

    @Test("Codable as its JSON text")
    func codable() throws {
        let data = try JSONEncoder().encode(Self.example)
        #expect(try JSONDecoder().decode(ClaimsRequest.self, from: data) == Self.example)
        #expect(try JSONDecoder().decode(String.self, from: data) == Self.exampleJSON)
    }

    @Test("an empty claims request is not sent")
    func empty() throws {
        var request = Fixture.request()
        request.claims = ClaimsRequest()
        #expect(try Fixture.query(request.authorizationURL(at: Fixture.endpoint), "claims") == nil)
    }
}
