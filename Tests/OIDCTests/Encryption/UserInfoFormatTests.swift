import Foundation
import JOSE
import Testing

@testable import OIDC

/// Records each request's `Accept` header, then answers as the scripted transport does.
final class AcceptRecordingTransport: HTTPTransport {
    let inner = ScriptedTransport()
    private let accepts = Locked([String]())
    var lastAccept: String? { accepts.withLock { $0.last } }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if request.url.path.hasSuffix("/userinfo") { accepts.withLock { $0.append(request.headers["Accept"] ?? "") } }
        return try await inner.send(request)
    }
}

/// UserInfo as JSON, signed (`application/jwt`), encrypted, or signed then encrypted (OpenID Connect Core §5.3.2).
@Suite("OIDCClient: signed and encrypted UserInfo")
struct UserInfoFormatTests {
    typealias C = OIDCClientTests
    static let userinfo = "https://op.example.com/userinfo"
    static let decryptionKey: JWK = (try? JWK.generate(.rsa(bits: 2048))) ?? JWK(symmetricKey: Array(repeating: 1, count: 32))

    static func client(_ format: UserInfoFormat, keys: [JWK] = [decryptionKey]) throws -> (OIDCClient, AcceptRecordingTransport) {
        let transport = AcceptRecordingTransport()
        transport.inner.json(F.jwksURL.absoluteString, F.jwks([try F.publicJWK("rsa2048", kid: "k1")]))
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        configuration.decryptionKeys = JWEDecryptionKeys(keys: keys)
        configuration.userInfoFormat = format
        let client = try OIDCClient(
            metadata: C.metadata(), authentication: .clientSecretBasic(clientID: F.clientID, secret: "s3cret-s3cret-s3cret-s3cret-s3cret!"),
            transport: transport, configuration: configuration)
        return (client, transport)
    }

    static func answer(_ transport: AcceptRecordingTransport, _ body: String, type: String = "application/jwt") {
        transport.inner.json(userinfo, body, headers: ["Content-Type": type])
    }

    static func signed(_ claims: JSONObject) throws -> String {
        try JWT.sign(claims, key: F.privateKey("rsa2048", kid: "k1"), algorithm: .rs256)
    }

    static func encrypted(_ text: String, cty: String? = "JWT") throws -> String {
        try CompactJWE.encrypt(text, to: decryptionKey.publicKey, algorithm: .rsaOAEP256, encryption: .a256GCM, contentType: cty)
    }

    static let tokens = { (try? TokenResponse(accessToken: "at-0", idToken: OIDCClientTests.idToken())) ?? TokenResponse(accessToken: "at-0") }()

    @Test("signed UserInfo: verified with the provider's keys, iss/aud checked when present, sub against the ID Token")
    func signed() async throws {
        let (client, transport) = try Self.client(.signed)
        Self.answer(transport, try Self.signed(["sub": "alice", "email": "a@example.com", "iss": .string(F.issuer), "aud": .string(F.clientID)]))
        #expect(try await client.userInfo(Self.tokens)["email"]?.stringValue == "a@example.com")
        #expect(transport.lastAccept == "application/jwt")
        // Without iss/aud (as the OpenID RP tool sends it): accepted.
        Self.answer(transport, try Self.signed(["sub": "alice"]))
        #expect(try await client.userInfo(Self.tokens)["sub"]?.stringValue == "alice")
        Self.answer(transport, F.tamper(try Self.signed(["sub": "alice"])))
        await expectOIDCError(.invalidUserInfoJWT) { try await client.userInfo(Self.tokens) }
        Self.answer(transport, try Self.signed(["sub": "alice", "iss": "https://evil.example"]))
        await expectOIDCError(.invalidUserInfoJWT) { try await client.userInfo(Self.tokens) }
        Self.answer(transport, try Self.signed(["sub": "alice", "aud": "someone-else"]))
        await expectOIDCError(.invalidUserInfoJWT) { try await client.userInfo(Self.tokens) }
        Self.answer(transport, try Self.signed(["sub": "mallory"]))
        await expectOIDCError(.userInfoSubjectMismatch) { try await client.userInfo(Self.tokens) }
        Self.answer(transport, F.unsecured(["sub": "alice"]))
        await expectOIDCError(.invalidUserInfoJWT) { try await client.userInfo(Self.tokens) }
        // JSON when a signed answer was registered: refused.
        Self.answer(transport, #"{"sub":"alice"}"#, type: "application/json")
        await expectOIDCError(.unexpectedUserInfoFormat) { try await client.userInfo(Self.tokens) }
    }

    @Test("default (JSON registered): JSON as today, and a signed answer is read once verified (it used to fail: not JSON)")
    func jsonDefault() async throws {
        let (client, transport) = try Self.client(.json, keys: [])
        Self.answer(transport, #"{"sub":"alice","email":"a@example.com"}"#, type: "application/json")
        #expect(try await client.userInfo(Self.tokens)["email"]?.stringValue == "a@example.com")
        #expect(transport.lastAccept == "application/json")
        Self.answer(transport, try Self.signed(["sub": "alice", "email": "b@example.com"]))
        #expect(try await client.userInfo(Self.tokens)["email"]?.stringValue == "b@example.com")
        Self.answer(transport, F.tamper(try Self.signed(["sub": "alice"])))
        await expectOIDCError(.invalidUserInfoJWT) { try await client.userInfo(Self.tokens) }
        Self.answer(transport, try Self.encrypted(try Self.signed(["sub": "alice"])))
        await expectOIDCError(.userInfoDecryptionFailed) { try await client.userInfo(Self.tokens) }
    }

    @Test("encrypted UserInfo (JSON inside) and signed then encrypted; the registered form is required")
    func encrypted() async throws {
        let registered = ResponseEncryption(algorithm: .rsaOAEP256, encryption: .a256GCM)
        let (client, transport) = try Self.client(.encrypted(registered))
        Self.answer(transport, try Self.encrypted(#"{"sub":"alice","email":"e@example.com"}"#, cty: nil))
        #expect(try await client.userInfo(Self.tokens)["email"]?.stringValue == "e@example.com")
        #expect(transport.lastAccept == "application/jwt")
        Self.answer(transport, try Self.encrypted(try Self.signed(["sub": "alice", "email": "s@example.com"])))
        #expect(try await client.userInfo(Self.tokens)["email"]?.stringValue == "s@example.com")
        Self.answer(transport, try Self.signed(["sub": "alice"]))
        await expectOIDCError(.unexpectedUserInfoFormat) { try await client.userInfo(Self.tokens) }
        Self.answer(transport, #"{"sub":"alice"}"#, type: "application/json")
        await expectOIDCError(.unexpectedUserInfoFormat) { try await client.userInfo(Self.tokens) }
        Self.answer(transport, try CompactJWE.encrypt(#"{"sub":"alice"}"#, to: Self.decryptionKey.publicKey, algorithm: .rsaOAEP, encryption: .a256GCM))
        await expectOIDCError(.userInfoDecryptionFailed) { try await client.userInfo(Self.tokens) }

        let (both, bothTransport) = try Self.client(.signedAndEncrypted(registered))
        Self.answer(bothTransport, try Self.encrypted(try Self.signed(["sub": "alice", "email": "s@example.com"])))
        #expect(try await both.userInfo(Self.tokens)["email"]?.stringValue == "s@example.com")
        Self.answer(bothTransport, try Self.encrypted(#"{"sub":"alice"}"#, cty: nil))
        await expectOIDCError(.unexpectedUserInfoFormat) { try await both.userInfo(Self.tokens) }
        Self.answer(bothTransport, try Self.encrypted(F.tamper(try Self.signed(["sub": "alice"]))))
        await expectOIDCError(.invalidUserInfoJWT) { try await both.userInfo(Self.tokens) }
    }
}
