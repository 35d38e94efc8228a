import Foundation
import JOSE
import Testing

@testable import OIDC

/// RFC 9396: `authorization_details` in requests, PAR, request objects and token responses.
@Suite("Rich Authorization Requests (RFC 9396)")
struct AuthorizationDetailsTests {
    struct PaymentInitiation: Codable, Equatable {
        var type = "payment_initiation"
        var actions: [String]
        var instructedAmount: Amount
        struct Amount: Codable, Equatable { var currency: String; var amount: String }
    }

    static let payment = PaymentInitiation(actions: ["initiate"], instructedAmount: .init(currency: "EUR", amount: "123.50"))

    static func request() throws -> OAuthRequest {
        var request = OAuthRequest(
            clientID: "app", redirectURI: try #require(URL(string: "https://app.example/cb")),
            state: try OAuthState("st-0123456789"), nonce: nil, pkce: nil)
        request.authorizationDetails = [
            try AuthorizationDetail(Self.payment),
            try AuthorizationDetail(type: "account_information", members: ["actions": ["read"]]),
        ]
        return request
    }

    @Test("sent as one compact JSON array parameter, on the URL and in the PAR body alike")
    func parameters() throws {
        let parameters = try Self.request().authorizationParameters()
        let value = try #require(parameters.first { $0.name == "authorization_details" }?.value)
        let parsed = try AuthorizationDetail.parseArray(jsonText: value)
        #expect(parsed.map(\.type) == ["payment_initiation", "account_information"])
        #expect(!value.contains(" ") && !value.contains("\n"))
        #expect(try parsed.decode(PaymentInitiation.self, ofType: "payment_initiation") == [Self.payment])
        let url = try Self.request().authorizationURL(at: try #require(URL(string: "https://as.example/authorize")))
        let query = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(query.first { $0.name == "authorization_details" }?.value == value)
    }

    @Test("a request object carries authorization_details as a JSON array claim")
    func requestObject() throws {
        let key = try JWK.generate(.ec(.p256))
        let jwt = try RequestObject.sign(
            parameters: try Self.request().authorizationParameters(), clientID: "app",
            issuer: "https://as.example", key: key, algorithm: .es256)
        let claims = try decodeJWT(jwt).claims
        let details = try AuthorizationDetail.parseArray(try #require(claims["authorization_details"]), what: "the request object")
        #expect(details.count == 2)
    }

    @Test("objects without a type are refused with a typed error; the name is reserved")
    func refusals() throws {
        #expect(throws: OIDCError.self) { try AuthorizationDetail(json: ["actions": ["read"]]) }
        #expect(throws: OIDCError.self) { try AuthorizationDetail.parseArray(jsonText: #"[{"type":""}]"#) }
        #expect(throws: OIDCError.self) { try AuthorizationDetail.parseArray(jsonText: #"{"type":"a"}"#) }
        #expect(throws: OIDCError.self) { try AuthorizationDetail(type: "a", members: ["type": "b"]) }
        var request = try Self.request()
        request.authorizationDetails = []
        request.additionalParameters["authorization_details"] = "[]"
        let error = #expect(throws: OIDCError.self) { _ = try request.authorizationParameters() }
        #expect(error?.code == .parameterCollision)
    }

    @Test("a client credentials request carries authorization_details in its form body; the answer's details are typed")
    func clientCredentials() async throws {
        final class Capture: HTTPTransport, @unchecked Sendable {
            let bodies = Locked<[String]>([])
            func send(_ request: TransportRequest) async throws -> TransportResponse {
                if case .bytes(let bytes) = request.body { bodies.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }
                return TransportResponse(
                    status: 200, headers: ["Content-Type": "application/json"],
                    body: Array(
                        #"{"access_token":"a","token_type":"Bearer","authorization_details":[{"type":"account_information","actions":["read"]}]}"#.utf8))
            }
        }
        let transport = Capture()
        let client = try TokenClient(
            tokenEndpoint: try #require(URL(string: "https://as.example/token")),
            authentication: .clientSecretBasic(clientID: "svc", secret: "s"), transport: transport)
        let details = [try AuthorizationDetail(type: "account_information", members: ["actions": ["read"]])]
        let tokens = try await client.clientCredentials(additionalParameters: [AuthorizationDetail.tokenRequestParameter(details)])
        let body = try #require(transport.bodies.withLock { $0.first })
        let form = try #require(URLComponents(string: "https://x/?" + body)?.queryItems)
        #expect(form.first { $0.name == "authorization_details" }?.value == #"[{"type":"account_information","actions":["read"]}]"#)
        #expect(try tokens.authorizationDetails == details)
    }

    @Test("the granted details of a token response, typed; a pending request keeps them through Codable")
    func tokenResponse() throws {
        let object = try JSONParser.parseObject(
            Array(
                #"{"access_token":"a","token_type":"Bearer","authorization_details":[{"type":"payment_initiation","actions":["initiate"],"instructedAmount":{"currency":"EUR","amount":"123.50"}}]}"#
                    .utf8), what: "t")
        let tokens = try TokenResponse(storedJSON: object)
        #expect(try tokens.authorizationDetails?.decode(PaymentInitiation.self, ofType: "payment_initiation") == [Self.payment])
        #expect(try TokenResponse(accessToken: "a").authorizationDetails == nil)
        let bad = try TokenResponse(
            storedJSON: try JSONParser.parseObject(Array(#"{"access_token":"a","token_type":"Bearer","authorization_details":{"type":"x"}}"#.utf8), what: "t"))
        #expect(throws: OIDCError.self) { _ = try bad.authorizationDetails }
        let request = try Self.request()
        let decoded = try JSONDecoder().decode(OAuthRequest.self, from: JSONEncoder().encode(request))
        #expect(decoded.authorizationDetails == request.authorizationDetails)
    }
}
