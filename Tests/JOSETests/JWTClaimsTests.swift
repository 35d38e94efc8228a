import Foundation
import Testing

@testable import JOSE

@Suite("JWT claims: typed access")
struct JWTClaimsTests {
    static func claims(_ json: String) throws -> JWTClaims { try JWTClaims(payload: Array(json.utf8)) }

    static func expectMismatch(_ member: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected claimTypeMismatch for \(member)", sourceLocation: sourceLocation)
        } catch let error as JOSEError {
            #expect(error.code == .claimTypeMismatch, "\(error)", sourceLocation: sourceLocation)
            #expect(error.member == member, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("registered claims read with their types")
    func registered() throws {
        let c = try Self.claims(
            #"{"iss":"https://issuer.example","sub":"248289761001","aud":"client-1","jti":"id-1","exp":1700000600,"nbf":1700000000,"iat":1700000000.5}"#)
        #expect(try c.issuer == "https://issuer.example")
        #expect(try c.subject == "248289761001")
        #expect(try c.jwtID == "id-1")
        #expect(try c.audience == ["client-1"])
        #expect(try c.expiresAt == Date(timeIntervalSince1970: 1_700_000_600))
        #expect(try c.notBefore == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(try c.issuedAt == Date(timeIntervalSince1970: 1_700_000_000.5))
        let empty = try Self.claims("{}")
        #expect(try empty.issuer == nil)
        #expect(try empty.audience == nil)
        #expect(try empty.expiresAt == nil)
    }

    @Test("aud as a string or an array of strings")
    func audience() throws {
        #expect(try Self.claims(#"{"aud":"a"}"#).audience == ["a"])
        #expect(try Self.claims(#"{"aud":["a","b"]}"#).audience == ["a", "b"])
        #expect(try Self.claims(#"{"aud":[]}"#).audience == [])
        Self.expectMismatch("aud") { _ = try Self.claims(#"{"aud":["a",1]}"#).audience }
        Self.expectMismatch("aud") { _ = try Self.claims(#"{"aud":7}"#).audience }
        Self.expectMismatch("aud") { _ = try Self.claims(#"{"aud":{"a":1}}"#).audience }
    }

    @Test(
        "a registered claim of the wrong type names the claim",
        arguments: [
            ("iss", #"{"iss":1}"#), ("sub", #"{"sub":true}"#), ("jti", #"{"jti":[]}"#), ("exp", #"{"exp":"1700000000"}"#),
            ("nbf", #"{"nbf":null}"#), ("iat", #"{"iat":{}}"#),
        ])
    func wrongType(_ name: String, _ json: String) throws {
        let c = try Self.claims(json)
        Self.expectMismatch(name) {
            switch name {
            case "iss": _ = try c.issuer
            case "sub": _ = try c.subject
            case "jti": _ = try c.jwtID
            case "exp": _ = try c.expiresAt
            case "nbf": _ = try c.notBefore
            default: _ = try c.issuedAt
            }
        }
    }

    struct Address: Decodable, Equatable {
        var country: String
        var locality: String?
    }

    @Test("claim(_:as:) reads any claim as the asked type")
    func claimAs() throws {
        let c = try Self.claims(#"{"email_verified":true,"age":42,"score":0.5,"groups":["a","b"],"name":"Ann","address":{"country":"NO"},"nothing":null}"#)
        #expect(try c.claim("email_verified", as: Bool.self) == true)
        #expect(try c.claim("age", as: Int.self) == 42)
        #expect(try c.claim("age", as: Double.self) == 42)
        #expect(try c.claim("score", as: Double.self) == 0.5)
        #expect(try c.claim("groups", as: [String].self) == ["a", "b"])
        #expect(try c.claim("name", as: String.self) == "Ann")
        #expect(try c.claim("address", as: Address.self) == Address(country: "NO", locality: nil))
        #expect(try c.claim("absent", as: String.self) == nil)
        #expect(try c.claim("nothing", as: String.self) == nil)
        Self.expectMismatch("age") { _ = try c.claim("age", as: String.self) }
        Self.expectMismatch("name") { _ = try c.claim("name", as: Int.self) }
        Self.expectMismatch("score") { _ = try c.claim("score", as: Int.self) }
        Self.expectMismatch("groups") { _ = try c.claim("groups", as: [Int].self) }
        Self.expectMismatch("address") { _ = try c.claim("address", as: [String].self) }
    }

    struct IDToken: Decodable {
        var iss: String
        var sub: String
        var aud: String
        var exp: Int
        var nonce: String?
    }

    @Test("decode(_:) maps the payload onto a Decodable type and names the failing member")
    func decode() throws {
        let token = try Self.claims(#"{"iss":"i","sub":"s","aud":"a","exp":1700000000,"nonce":"n"}"#).decode(IDToken.self)
        #expect(token.iss == "i" && token.sub == "s" && token.aud == "a" && token.exp == 1_700_000_000 && token.nonce == "n")
        Self.expectMismatch("exp") { _ = try Self.claims(#"{"iss":"i","sub":"s","aud":"a","exp":"soon"}"#).decode(IDToken.self) }
        Self.expectMismatch("sub") { _ = try Self.claims(#"{"iss":"i","aud":"a","exp":1}"#).decode(IDToken.self) }
    }

    @Test("a payload that is not a JSON object is refused")
    func notObject() throws {
        expectCode(.invalidJSON) { _ = try Self.claims("[]") }
        expectCode(.invalidJSON) { _ = try Self.claims("not json") }
        expectCode(.duplicateJSONMember) { _ = try Self.claims(#"{"exp":1,"exp":2}"#) }
    }
}
