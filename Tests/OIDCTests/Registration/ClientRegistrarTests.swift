import Foundation
import JOSE
import Testing

@testable import OIDC

/// Records every request and answers each with the next scripted response.
private final class RecordingTransport: HTTPTransport {
    private let state = Locked<(requests: [TransportRequest], replies: [TransportResponse])>(([], []))
    init(_ replies: [TransportResponse]) { state.withLock { $0.replies = replies } }
    var requests: [TransportRequest] { state.withLock { $0.requests } }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        state.withLock { state in
            state.requests.append(request)
            return state.replies.isEmpty ? TransportResponse(status: 404) : state.replies.removeFirst()
        }
    }
}

private func json(_ status: Int, _ body: String) -> TransportResponse {
    TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
}

private func body(_ request: TransportRequest) throws -> JSONObject {
    guard case .bytes(let bytes) = try #require(request.body) else { throw CancellationError() }
    return try JSONParser.parseObject(bytes, what: "request")
}

private let endpoint = URL(string: "https://op.example/register")!
private let answer = """
    {"client_id":"c1","client_secret":"s3cr3t-value","registration_access_token":"rat-value",
     "registration_client_uri":"https://op.example/register/c1","client_id_issued_at":1700000000,"client_secret_expires_at":0,
     "redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"client_secret_post","vendor_member":{"a":1}}
    """

@Suite struct ClientRegistrarTests {
    @Test func registersWithPublicKeysOnlyAndRedactsSecrets() async throws {
        let transport = RecordingTransport([json(201, answer)])
        let registrar = try ClientRegistrar(registrationEndpoint: endpoint, issuer: "https://op.example", transport: transport)
        var metadata = ClientMetadata(redirectURIs: [URL(string: "https://app.example/cb")!], extra: JSONObject([("software_id", .string("x"))]))
        let key = try JWK.generate(.ec(.p256))
        metadata.jwks = [key]
        metadata.contacts = ["ops@app.example"]
        metadata.backchannelLogoutURI = URL(string: "https://app.example/bcl")
        let registration = try await registrar.register(metadata, initialAccessToken: "iat-value")

        let request = try #require(transport.requests.first)
        #expect(request.method == .post)
        #expect(request.headers["Authorization"] == "Bearer iat-value")
        #expect(request.headers["Content-Type"] == "application/json")
        let sent = try body(request)
        let sentKey = try #require(sent["jwks"]?.objectValue?["keys"]?.arrayValue?.first?.objectValue)
        #expect(sentKey["d"] == nil && sentKey["x"] != nil)
        #expect(sent["software_id"]?.stringValue == "x")
        #expect(sent["backchannel_logout_uri"]?.stringValue == "https://app.example/bcl")
        #expect(sent["contacts"]?.arrayValue == [.string("ops@app.example")])

        #expect(registration.clientID == "c1")
        #expect(registration.clientSecret == "s3cr3t-value")
        #expect(registration.clientSecretExpiresAt == nil)
        #expect(registration.metadata.tokenEndpointAuthMethod == "client_secret_post")
        #expect(registration.metadata.extra["vendor_member"] != nil)
        var dumped = ""
        dump(registration, to: &dumped)
        for text in ["\(registration)", dumped, registration.redactedAnswer.jsonString()] {
            #expect(!text.contains("s3cr3t-value") && !text.contains("rat-value"))
        }
        #expect(registration.redactedAnswer["client_secret"]?.stringValue == "<redacted>")
        guard case .clientSecretPost(let id, let secret) = try registration.authentication() else {
            Issue.record("client_secret_post expected")
            return
        }
        #expect(id == "c1" && secret == "s3cr3t-value")
    }

    @Test(arguments: [
        ("invalid_redirect_uri", OAuthError.Code.invalidRedirectURI), ("invalid_client_metadata", .invalidClientMetadata),
        ("invalid_software_statement", .invalidSoftwareStatement), ("unapproved_software_statement", .unapprovedSoftwareStatement),
    ])
    func refusalIsTyped(_ code: String, _ expected: OAuthError.Code) async throws {
        let transport = RecordingTransport([json(400, #"{"error":"\#(code)","error_description":"no"}"#)])
        let registrar = try ClientRegistrar(registrationEndpoint: endpoint, issuer: nil, transport: transport)
        do {
            _ = try await registrar.register(ClientMetadata(redirectURIs: [URL(string: "https://app.example/cb")!]), initialAccessToken: "iat-value")
            Issue.record("expected a refusal")
        } catch let error as OIDCError {
            #expect(error.code == .registrationRefused)
            #expect(error.oauthError?.code == expected)
            #expect(error.endpoint == .registration)
            #expect(!error.description.contains("iat-value"))
            #expect(Observation.code(of: error) == code)
        }
    }

    @Test func anEmpty401IsARefusal() async throws {
        let registrar = try ClientRegistrar(registrationEndpoint: endpoint, issuer: nil, transport: RecordingTransport([TransportResponse(status: 401)]))
        await expectOIDCError(.registrationRefused) { try await registrar.register(ClientMetadata(redirectURIs: [URL(string: "https://app.example/cb")!])) }
    }

    @Test func oneElementArraysStandForStrings() throws {
        let object = try JSONParser.parseObject(Array(#"{"client_id":"c1","token_endpoint_auth_method":["client_secret_basic"]}"#.utf8), what: "t")
        #expect(try ClientRegistration(answer: object, issuer: nil).metadata.tokenEndpointAuthMethod == "client_secret_basic")
    }

    @Test func httpOffLoopbackIsRefused() async throws {
        #expect(throws: OIDCError.self) {
            try ClientRegistrar(registrationEndpoint: URL(string: "http://op.example/register")!, issuer: nil, transport: RecordingTransport([]))
        }
        // A registration_client_uri over http off loopback is refused: the registration access token would travel in clear.
        let insecure = answer.replacingOccurrences(of: "https://op.example/register/c1", with: "http://op.example/register/c1")
        let registrar = try ClientRegistrar(registrationEndpoint: endpoint, issuer: "https://op.example", transport: RecordingTransport([json(201, insecure)]))
        await expectOIDCError(.insecureURL) { try await registrar.register(ClientMetadata(redirectURIs: [URL(string: "https://app.example/cb")!])) }
    }

    @Test func symmetricKeyIsNeverSent() async throws {
        let transport = RecordingTransport([json(201, answer)])
        let registrar = try ClientRegistrar(registrationEndpoint: endpoint, issuer: nil, transport: transport)
        var metadata = ClientMetadata(redirectURIs: [URL(string: "https://app.example/cb")!])
        metadata.jwks = [try JWK(json: #"{"kty":"oct","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ"}"#)]
        await expectOIDCError(.invalidClientMetadata) { try await registrar.register(metadata) }
        #expect(transport.requests.isEmpty)
    }

    @Test func answersOfTheWrongShapeAreTyped() async throws {
        for bad in [
            #"{"client_secret":"x"}"#, #"{"client_id":"c1","redirect_uris":"https://a"}"#,
            #"{"client_id":"c1","client_secret_expires_at":"soon"}"#, "[1]",
        ] {
            let registrar = try ClientRegistrar(registrationEndpoint: endpoint, issuer: nil, transport: RecordingTransport([json(201, bad)]))
            await expectOIDCError(.registrationInvalidResponse) {
                try await registrar.register(ClientMetadata(redirectURIs: [URL(string: "https://app.example/cb")!]))
            }
        }
    }

    @Test func managementReadsUpdatesAndDeletes() async throws {
        let updated = #"{"client_id":"c1","redirect_uris":["https://app.example/cb2"],"client_name":"renamed"}"#
        let transport = RecordingTransport([
            json(201, answer), json(200, answer), json(200, updated), TransportResponse(status: 204),
            json(200, #"{"client_id":"someone-else"}"#),
        ])
        let registrar = try ClientRegistrar(registrationEndpoint: endpoint, issuer: "https://op.example", transport: transport)
        let registration = try await registrar.register(ClientMetadata(redirectURIs: [URL(string: "https://app.example/cb")!]))

        _ = try await registrar.read(registration)
        #expect(transport.requests[1].method == .get)
        #expect(transport.requests[1].url.absoluteString == "https://op.example/register/c1")
        #expect(transport.requests[1].headers["Authorization"] == "Bearer rat-value")

        var metadata = ClientMetadata(redirectURIs: [URL(string: "https://app.example/cb2")!])
        metadata.clientName = "renamed"
        let after = try await registrar.update(registration, to: metadata)
        let sent = try body(transport.requests[2])
        #expect(transport.requests[2].method == .put)
        #expect(sent["client_id"]?.stringValue == "c1" && sent["client_secret"]?.stringValue == "s3cr3t-value")
        // The answer left the token, the URI and the secret out: they stay as they were (RFC 7592 §3).
        #expect(after.registrationAccessToken == "rat-value" && after.clientSecret == "s3cr3t-value")
        #expect(after.metadata.clientName == "renamed")

        try await registrar.delete(after)
        #expect(transport.requests[3].method == .delete)

        await expectOIDCError(.registrationInvalidResponse) { try await registrar.read(registration) }
    }

    @Test func managementNeedsTheAccessToken() async throws {
        let registration = try ClientRegistration(answer: JSONParser.parseObject(Array(#"{"client_id":"c1"}"#.utf8), what: "t"), issuer: nil)
        let registrar = try ClientRegistrar(registrationEndpoint: endpoint, issuer: nil, transport: RecordingTransport([]))
        await expectOIDCError(.registrationNotSupported) { try await registrar.read(registration) }
        await expectOIDCError(.registrationNotSupported) { try await registrar.delete(registration) }
        guard case .none = try registration.authentication() else {  // no method and no secret: a public client
            Issue.record("a public client expected")
            return
        }
        var basic = JSONObject([("client_id", .string("c1")), ("token_endpoint_auth_method", .string("client_secret_basic"))])
        #expect(throws: OIDCError.self) { try ClientRegistration(answer: basic, issuer: nil).authentication() }  // no secret
        basic["token_endpoint_auth_method"] = .string("tls_client_auth")
        #expect(throws: OIDCError.self) { try ClientRegistration(answer: basic, issuer: nil).authentication() }  // not spoken
        #expect(registration.metadata.redirectURIs.isEmpty)
    }
}
