import Foundation
import JOSE
import Testing

@testable import OIDC

/// Answers every request with one canned response (or error) and records the requests.
final class CannedTransport: HTTPTransport, Sendable {
    let response: @Sendable (TransportRequest) throws -> TransportResponse
    private let log = Locked<[TransportRequest]>([])

    init(_ response: @escaping @Sendable (TransportRequest) throws -> TransportResponse) { self.response = response }
    convenience init(status: Int, contentType: String = "application/json", body: String) {
        self.init { _ in TransportResponse(status: status, headers: ["Content-Type": contentType], body: Array(body.utf8)) }
    }

    var requests: [TransportRequest] { log.withLock { $0 } }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        log.withLock { $0.append(request) }
        return try response(request)
    }
}

extension TransportRequest {
    var bodyText: String {
        if case .bytes(let bytes) = body { return String(decoding: bytes, as: UTF8.self) }
        return ""
    }
}

@Suite("TokenClient against a scripted transport")
struct TokenClientTests {
    static let endpoint = URL(string: "https://idp.example/token")!
    static let fixedNow = Date(timeIntervalSince1970: 1_800_000_000)
    static let success = #"{"access_token":"AT","token_type":"bEaReR","expires_in":3600,"refresh_token":"RT","id_token":"x.y.z","scope":"openid","custom":42}"#

    func client(_ transport: CannedTransport, _ authentication: ClientAuthentication) throws -> TokenClient {
        try TokenClient(tokenEndpoint: Self.endpoint, authentication: authentication, transport: transport, clock: { Self.fixedNow })
    }

    @Test("code exchange: form body, basic auth with form-encoded id and secret, response fields and absolute expiry")
    func exchange() async throws {
        let transport = CannedTransport(status: 200, body: Self.success)
        let tokens = try await client(transport, .clientSecretBasic(clientID: "my app:1", secret: "s3cr+t é"))
            .exchangeCode("the code", redirectURI: URL(string: "https://app.example/cb")!, codeVerifier: "verifier-123")
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(!request.followsRedirects)
        #expect(request.bodyText == "grant_type=authorization_code&code=the%20code&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&code_verifier=verifier-123")
        // RFC 6749 §2.3.1: form-encode, then Base64 of "id:secret".
        let expected = "Basic " + Data("my%20app%3A1:s3cr%2Bt%20%C3%A9".utf8).base64EncodedString()
        #expect(request.headers["authorization"] == expected)
        #expect(tokens.accessToken == "AT" && tokens.refreshToken == "RT" && tokens.idToken == "x.y.z")
        #expect(tokens.isBearer)
        #expect(tokens.expiresAt == Self.fixedNow.addingTimeInterval(3600))
        #expect(tokens.additionalFields["custom"] == .integer(42))
        #expect(!String(describing: tokens).contains("AT") && !String(describing: tokens).contains("RT"))
    }

    @Test("client_secret_post and none put the credentials in the body")
    func postAndNone() async throws {
        let transport = CannedTransport(status: 200, body: Self.success)
        _ = try await client(transport, .clientSecretPost(clientID: "app", secret: "pw&x")).refresh("RT", scope: "openid email")
        #expect(transport.requests[0].bodyText == "grant_type=refresh_token&refresh_token=RT&scope=openid%20email&client_id=app&client_secret=pw%26x")
        #expect(transport.requests[0].headers["Authorization"] == nil)
        _ = try await client(transport, .none(clientID: "public")).refresh("RT")
        #expect(transport.requests[1].bodyText == "grant_type=refresh_token&refresh_token=RT&client_id=public")
    }

    @Test("private_key_jwt and client_secret_jwt send a verifiable RFC 7523 assertion with a unique jti")
    func assertions() async throws {
        let keyText = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Keys/p256.pem"), encoding: .utf8)
        var key = try JWK(pem: keyText)
        key.algorithm = nil
        let transport = CannedTransport(status: 200, body: Self.success)
        let tokenClient = try TokenClient(
            tokenEndpoint: Self.endpoint, authentication: .privateKeyJWT(clientID: "app", key: key, algorithm: .es256),
            transport: transport, assertionAudience: .endpointURL, clock: { Self.fixedNow })
        _ = try await tokenClient.refresh("RT")
        _ = try await tokenClient.refresh("RT")
        var jtis: Set<String> = []
        for request in transport.requests {
            let fields = try FormURLEncoding.parse(request.bodyText)
            #expect(fields.first { $0.name == "client_assertion_type" }?.value == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            let assertion = try #require(fields.first { $0.name == "client_assertion" }?.value)
            let jwt = try JWT.verifyIgnoringIssuerAndAudience(
                assertion, key: key.publicKey,
                validation: JWTValidationPolicy(clock: { Self.fixedNow }, issuer: "app", audience: Self.endpoint.absoluteString))
            #expect(try jwt.claims.subject == "app")
            #expect(try jwt.claims.issuedAt == Self.fixedNow.addingTimeInterval(-1))  // one second behind the clock (AssertionTimes)
            #expect(try jwt.claims.expiresAt == Self.fixedNow.addingTimeInterval(59))
            jtis.insert(try #require(try jwt.claims.jwtID))
        }
        #expect(jtis.count == 2)
        let secretTransport = CannedTransport(status: 200, body: Self.success)
        let secret = String(repeating: "k", count: 32)
        _ = try await TokenClient(
            tokenEndpoint: Self.endpoint, authentication: .clientSecretJWT(clientID: "app", secret: secret),
            transport: secretTransport, assertionAudience: .endpointURL, clock: { Self.fixedNow }
        ).refresh("RT")
        let assertion = try #require(try FormURLEncoding.parse(secretTransport.requests[0].bodyText).first { $0.name == "client_assertion" }?.value)
        _ = try JWT.verifyIgnoringIssuerAndAudience(
            assertion, key: JWK(symmetricKey: Array(secret.utf8)), validation: JWTValidationPolicy(clock: { Self.fixedNow }))
    }

    @Test(
        "client assertions are addressed to the issuer by default (the same setting for every endpoint); without an issuer that is a typed error before sending"
    )
    func assertionAudienceDefault() async throws {
        let key = try JWK.generate(.ec(.p256))
        let authentication = ClientAuthentication.privateKeyJWT(clientID: "app", key: key, algorithm: .es256)
        let transport = CannedTransport(status: 200, body: Self.success)
        _ = try await TokenClient(
            tokenEndpoint: Self.endpoint, issuer: "https://idp.example", authentication: authentication,
            transport: transport, clock: { Self.fixedNow }
        ).refresh("RT")
        let assertion = try #require(try FormURLEncoding.parse(transport.requests[0].bodyText).first { $0.name == "client_assertion" }?.value)
        let jwt = try JWT.verifyIgnoringIssuerAndAudience(assertion, key: key.publicKey, validation: JWTValidationPolicy(clock: { Self.fixedNow }))
        #expect(try jwt.claims.audience == ["https://idp.example"])
        let noIssuer = CannedTransport(status: 200, body: Self.success)
        let error = await #expect(throws: OIDCError.self) {
            _ = try await TokenClient(tokenEndpoint: Self.endpoint, authentication: authentication, transport: noIssuer).refresh("RT")
        }
        #expect(error?.code == .invalidTokenRequest)
        #expect(noIssuer.requests.isEmpty)
        _ = try await client(noIssuer, .clientSecretBasic(clientID: "app", secret: "s")).refresh("RT")  // no assertion: no issuer needed
        #expect(noIssuer.requests.count == 1)
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let name: String
        let status: Int
        let contentType: String
        let body: String
        let code: OIDCError.Code
        let oauth: String?
        var testDescription: String { name }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(
            name: "RFC 6749 error", status: 400, contentType: "application/json",
            body: #"{"error":"invalid_grant","error_description":"Code expired"}"#, code: .oauthError, oauth: "invalid_grant"),
        ErrorCase(
            name: "unknown error code kept verbatim", status: 400, contentType: "application/json",
            body: #"{"error":"consent_revoked_by_bank"}"#, code: .oauthError, oauth: "consent_revoked_by_bank"),
        ErrorCase(
            name: "JSON error labelled text/html", status: 401, contentType: "text/html; charset=utf-8",
            body: #"{"error":"invalid_client"}"#, code: .oauthError, oauth: "invalid_client"),
        ErrorCase(
            name: "HTML error page", status: 400, contentType: "text/html", body: "<html><body>Bad Request</body></html>",
            code: .invalidEndpointResponse, oauth: nil),
        ErrorCase(name: "5xx", status: 503, contentType: "text/plain", body: "upstream unavailable", code: .endpointServerError, oauth: nil),
        ErrorCase(name: "empty 200 body", status: 200, contentType: "application/json", body: "", code: .emptyEndpointResponse, oauth: nil),
        ErrorCase(
            name: "garbage 200 body", status: 200, contentType: "application/json", body: "\u{1}\u{2}not json",
            code: .invalidEndpointResponse, oauth: nil),
        ErrorCase(
            name: "200 without access_token", status: 200, contentType: "application/json", body: #"{"token_type":"Bearer"}"#,
            code: .invalidTokenResponse, oauth: nil),
        ErrorCase(
            name: "unexpected 418", status: 418, contentType: "application/json", body: #"{"teapot":true}"#,
            code: .unexpectedEndpointStatus, oauth: nil),
    ]

    @Test("each failure is its own typed error with the status", arguments: errorCases)
    func errors(_ item: ErrorCase) async throws {
        let transport = CannedTransport(status: item.status, contentType: item.contentType, body: item.body)
        do {
            _ = try await client(transport, .clientSecretPost(clientID: "app", secret: "hunter2")).refresh("refresh-secret")
            Issue.record("expected \(item.code)")
        } catch let error as OIDCError {
            #expect(error.code == item.code, "\(error)")
            #expect(error.httpStatus == item.status)
            #expect(error.oauthError?.error == item.oauth)
            #expect(!error.description.contains("hunter2") && !error.description.contains("refresh-secret"))
        }
    }

    @Test("a transport timeout is a typed transport error")
    func timeout() async throws {
        let transport = CannedTransport { _ in throw TransportError.timedOut }
        do {
            _ = try await client(transport, .none(clientID: "app")).refresh("RT")
            Issue.record("expected a transport error")
        } catch let error as OIDCError {
            #expect(error.code == .transport)
            #expect(error.transportError == .timedOut)
        }
    }

    @Test("userinfo 401 with a Bearer challenge is invalid_token; extra parameters cannot override standard ones")
    func userInfoAndOverrides() async throws {
        let transport = CannedTransport { _ in
            TransportResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer error="invalid_token", error_description="expired""#])
        }
        do {
            _ = try await client(transport, .none(clientID: "app")).userInfo(accessToken: "AT", endpoint: URL(string: "https://idp.example/userinfo")!)
            Issue.record("expected invalid_token")
        } catch let error as OIDCError {
            #expect(error.code == .invalidToken)
            #expect(error.oauthError?.errorDescription == "expired")
        }
        await #expect(throws: OIDCError.self) {
            _ = try await client(transport, .none(clientID: "app")).refresh("RT", additionalParameters: [("grant_type", "password")])
        }
    }

    @Test("TokenResponse round-trips through its stored JSON form")
    func storedForm() throws {
        let object = try JSONParser.parseObject(Array(Self.success.utf8), what: "t")
        let tokens = try TokenResponse(json: object, receivedAt: Self.fixedNow)
        let data = try JSONEncoder().encode(tokens)
        let back = try JSONDecoder().decode(TokenResponse.self, from: data)
        #expect(back.accessToken == "AT" && back.refreshToken == "RT" && back.expiresAt == tokens.expiresAt)
        #expect(back.additionalFields["custom"] == .integer(42))
    }
}
