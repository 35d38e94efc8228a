import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// One ``IntrospectionCache`` shared by introspectors with different clients and answer
/// policies at one endpoint, and the access-token path's `token_type` rule.
@Suite("Introspection: a shared cache keeps policies apart; token_type")
struct IntrospectionSharedCacheTests {
    static let endpoint = URL(string: "https://as.example/introspect")!
    static let plainAnswer = #"{"active":true,"scope":"read","sub":"from-json","exp":1800000300}"#
    static let signedInner = #"{"active":true,"scope":"read","sub":"from-jwt","exp":1800000300}"#

    static func signedAnswer(audience: String) throws -> String {
        let object = try JSONParser.parseObject(Array(signedInner.utf8), what: "test")
        let claims: JSONObject = [
            "iss": .string(Fixtures.issuer), "aud": .string(audience), "iat": .integer(1_800_000_000),
            "token_introspection": .object(object),
        ]
        return try JWT.sign(claims, key: try Fixtures.key("p256"), algorithm: .es256, header: ["typ": "token-introspection+jwt"])
    }

    /// The endpoint: a signed answer when asked for one (RFC 9701), plain JSON otherwise.
    static func endpointAnswering(signedWhenAsked: Bool) -> ScriptedTransport {
        ScriptedTransport { request in
            if signedWhenAsked, request.headers["Accept"] == "application/token-introspection+jwt" {
                return TransportResponse(
                    status: 200, headers: ["Content-Type": "application/token-introspection+jwt"],
                    body: Array(try signedAnswer(audience: "rs-b").utf8))
            }
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(plainAnswer.utf8))
        }
    }

    static func pair(_ transport: ScriptedTransport, cache: IntrospectionCache) throws -> (a: TokenIntrospector, b: TokenIntrospector) {
        let a = try TokenIntrospector(
            endpoint: endpoint, authentication: .clientSecretBasic(clientID: "rs-a", secret: "sa"),
            transport: transport, audience: .anyAudience, cache: cache, clock: Fixtures.clock)
        let b = try TokenIntrospector(
            endpoint: endpoint, authentication: .clientSecretBasic(clientID: "rs-b", secret: "sb"),
            transport: transport, audience: .anyAudience,
            jwtResponse: .init(issuer: Fixtures.issuer, keys: .keySet(try Fixtures.publicKeys())),
            cache: cache, clock: Fixtures.clock)
        return (a, b)
    }

    static func client(of request: TransportRequest) -> String? {
        guard let value = request.headers["Authorization"], value.hasPrefix("Basic "),
            let decoded = Data(base64Encoded: String(value.dropFirst(6)))
        else { return nil }
        return String(decoding: decoded, as: UTF8.self).split(separator: ":").first.map(String.init)
    }

    @Test("rs-a (plain JSON) caches a token; rs-b (signed answers required) asks the endpoint itself and gets the signed answer")
    func signedPolicyIsNotServedAnUnsignedAnswer() async throws {
        let cache = IntrospectionCache(maximumLifetime: 200, clock: Fixtures.clock)
        let transport = Self.endpointAnswering(signedWhenAsked: true)
        let (a, b) = try Self.pair(transport, cache: cache)
        #expect(try await a.introspect("TOKEN").activeToken?.subject == "from-json")
        #expect(try await b.introspect("TOKEN").activeToken?.subject == "from-jwt")
        #expect(transport.requests.count == 2)
        #expect(transport.requests.map(Self.client) == ["rs-a", "rs-b"])
        // Each policy's answer is cached for that policy.
        #expect(try await b.validate("TOKEN").subject == "from-jwt")
        #expect(try await a.validate("TOKEN").subject == "from-json")
        #expect(transport.requests.count == 2)
        // Forgetting a token (after revoking it) forgets it for every client of the endpoint.
        await cache.remove("TOKEN", at: Self.endpoint)
        _ = try await a.introspect("TOKEN")
        _ = try await b.introspect("TOKEN")
        #expect(transport.requests.count == 4)
    }

    @Test("the endpoint answers rs-b in plain JSON: refused as unsigned although rs-a's JSON answer for the token is cached")
    func unsignedAnswerStillRefused() async throws {
        let cache = IntrospectionCache(maximumLifetime: 200, clock: Fixtures.clock)
        let transport = Self.endpointAnswering(signedWhenAsked: false)
        let (a, b) = try Self.pair(transport, cache: cache)
        _ = try await a.validate("TOKEN")
        await expectCode(.unsignedIntrospectionResponse) { _ = try await b.introspect("TOKEN") }
        await expectCode(.unsignedIntrospectionResponse) { _ = try await b.validate("TOKEN") }
        #expect(transport.requests.count == 3)
    }

    @Test("two clients with the same JSON policy do not share answers either (the answer depends on who asks)")
    func clientsApart() async throws {
        let cache = IntrospectionCache(maximumLifetime: 200, clock: Fixtures.clock)
        let transport = ScriptedTransport { request in
            let active = Self.client(of: request) == "rs-a"
            return TransportResponse(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Array((active ? Self.plainAnswer : #"{"active":false}"#).utf8))
        }
        let a = try TokenIntrospector(
            endpoint: Self.endpoint, authentication: .clientSecretBasic(clientID: "rs-a", secret: "sa"),
            transport: transport, audience: .anyAudience, cache: cache, clock: Fixtures.clock)
        let c = try TokenIntrospector(
            endpoint: Self.endpoint, authentication: .clientSecretBasic(clientID: "rs-c", secret: "sc"),
            transport: transport, audience: .anyAudience, cache: cache, clock: Fixtures.clock)
        _ = try await a.validate("TOKEN")
        await expectCode(.inactiveToken) { _ = try await c.validate("TOKEN") }
        #expect(transport.requests.count == 2)
    }

    static func introspector(answer: String) throws -> TokenIntrospector {
        let transport = ScriptedTransport { _ in
            TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(answer.utf8))
        }
        return try TokenIntrospector(
            endpoint: Self.endpoint, authentication: .clientSecretBasic(clientID: "rs-a", secret: "sa"),
            transport: transport, audience: .anyAudience, clock: Fixtures.clock)
    }

    @Test(
        "validate refuses an answer about a token that is not an access token (RFC 7662 token_type)",
        arguments: ["refresh_token", "id_token", "N_A", "urn:ietf:params:oauth:token-type:refresh_token", "", "mac"])
    func notAnAccessToken(_ type: String) async throws {
        let introspector = try Self.introspector(answer: #"{"active":true,"scope":"read","token_type":"\#(type)"}"#)
        await expectCode(.unexpectedTokenType) { _ = try await introspector.validate("T", requiredScopes: ["read"]) }
        // introspect itself reports the answer as it is.
        #expect(try await introspector.introspect("T").activeToken?.tokenType == type)
    }

    @Test(
        "validate accepts token_type absent, access_token, Bearer and DPoP (any case)",
        arguments: [nil, "access_token", "Bearer", "bearer", "DPoP", "dpop"])
    func accessTokenTypes(_ type: String?) async throws {
        let member = type.map { #","token_type":"\#($0)""# } ?? ""
        let introspector = try Self.introspector(answer: #"{"active":true,"scope":"read"\#(member)}"#)
        #expect(try await introspector.validate("T", requiredScopes: ["read"]).scopes == ["read"])
    }

    @Test(
        "an answer's exp, iat or nbf outside the NumericDate range is an invalid answer (JOSE's rule)",
        arguments: ["exp", "iat", "nbf"], ["1e30", "-1", "253402300800"])
    func answerDatesInRange(_ member: String, _ number: String) async throws {
        let introspector = try Self.introspector(answer: #"{"active":true,"\#(member)":\#(number)}"#)
        await expectCode(.invalidIntrospectionResponse) { _ = try await introspector.introspect("T") }
    }
}
