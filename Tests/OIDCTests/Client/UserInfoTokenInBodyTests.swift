import Foundation
import JOSE
import Testing

@testable import OIDC

/// Records every UserInfo request, then answers as the scripted transport does.
final class UserInfoRequestRecorder: HTTPTransport {
    let inner = ScriptedTransport()
    private let requests = Locked([TransportRequest]())
    var last: TransportRequest? { requests.withLock { $0.last } }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if request.url.path.hasSuffix("/userinfo") { requests.withLock { $0.append(request) } }
        return try await inner.send(request)
    }
}

/// `rp-userinfo-bearer-body`: the access token in a form body (RFC 6750 §2.2) when the configuration asks for it;
/// the `Authorization` header (§2.1) stays the default.
@Suite("OIDCClient: UserInfo access token in the form body")
struct UserInfoTokenInBodyTests {
    static func client(inBody: Bool, dpop: Bool = false) throws -> (OIDCClient, UserInfoRequestRecorder) {
        let transport = UserInfoRequestRecorder()
        transport.inner.json(F.jwksURL.absoluteString, F.jwks([try F.publicJWK("rsa2048", kid: "k1")]))
        transport.inner.json(UserInfoFormatTests.userinfo, #"{"sub":"alice","email":"a@example.com"}"#)
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        configuration.userInfoTokenInFormBody = inBody
        if dpop { configuration.dpop = DPoPBinding(key: try DPoPKey.generate()) }
        let client = try OIDCClient(
            metadata: OIDCClientTests.metadata(), authentication: .clientSecretBasic(clientID: F.clientID, secret: "s3cret-s3cret-s3cret-s3cret-s3cret!"),
            transport: transport, configuration: configuration)
        return (client, transport)
    }

    @Test("default: GET with Authorization: Bearer, no body")
    func headerByDefault() async throws {
        let (client, transport) = try Self.client(inBody: false)
        #expect(try await client.userInfo(UserInfoFormatTests.tokens)["email"]?.stringValue == "a@example.com")
        let request = try #require(transport.last)
        #expect(request.method == .get)
        #expect(request.headers["Authorization"] == "Bearer at-0")
        #expect(request.body == nil)
    }

    @Test("userInfoTokenInFormBody: POST, form-encoded access_token, no Authorization header")
    func formBody() async throws {
        let (client, transport) = try Self.client(inBody: true)
        #expect(try await client.userInfo(UserInfoFormatTests.tokens)["email"]?.stringValue == "a@example.com")
        let request = try #require(transport.last)
        #expect(request.method == .post)
        #expect(request.headers["Authorization"] == nil)
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        guard case .bytes(let body)? = request.body else { Issue.record("no body"); return }
        #expect(String(decoding: body, as: UTF8.self) == "access_token=at-0")
    }

    @Test("a DPoP-bound client cannot move the token into the body")
    func refusedWithDPoP() async throws {
        let (client, transport) = try Self.client(inBody: true, dpop: true)
        await expectOIDCError(.invalidRequestParameter) { try await client.userInfo(UserInfoFormatTests.tokens) }
        #expect(transport.last == nil)
    }
}
