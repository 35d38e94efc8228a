import Foundation
import JOSE
import Testing

@testable import OIDC

/// JARM: `finishLogin` verifies the response JWT (signature, `iss`, `aud`, `exp`; decrypted when encrypted)
/// before reading `code` and `state`.
@Suite("OIDCClient: JARM response modes")
struct JARMTests {
    typealias C = OIDCClientTests
    static let decryptionKey: JWK = (try? JWK.generate(.ec(.p256))) ?? JWK(symmetricKey: Array(repeating: 1, count: 32))

    static func client(encryption: ResponseEncryption? = nil) throws -> (OIDCClient, ScriptedTransport) {
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        configuration.decryptionKeys = JWEDecryptionKeys(keys: [decryptionKey])
        configuration.authorizationResponseEncryption = encryption
        return try C.client(configuration: configuration)
    }

    static func response(_ pending: PendingLogin, _ changes: [(String, JSONValue?)] = [], key: JWK? = nil) throws -> String {
        var claims: JSONObject = [
            "iss": .string(F.issuer), "aud": .string(F.clientID), "exp": .integer(Int64(F.start.timeIntervalSince1970) + 300),
            "code": "the-code", "state": .string(pending.state),
        ]
        for (name, value) in changes { claims[name] = value }
        return try JWT.sign(claims, key: key ?? F.privateKey("rsa2048", kid: "k1"), algorithm: .rs256)
    }

    static func start(_ client: OIDCClient, _ mode: ResponseMode) async throws -> PendingLogin {
        try await client.startLogin(LoginRequest(redirectURI: C.redirectURI, responseMode: mode))
    }

    @Test("query.jwt / jwt: the response JWT is verified, then code and state are read and the code redeemed")
    func verified() async throws {
        for mode in [ResponseMode.jwt, .queryJWT] {
            let (client, transport) = try Self.client()
            let pending = try await Self.start(client, mode)
            #expect(pending.url.absoluteString.contains("response_mode=\(mode.rawValue)"))
            C.tokens(transport, idToken: try C.idToken([("nonce", .string(try #require(pending.nonce).value))]))
            let url = URL(string: "https://app.example.com/callback?response=" + (try Self.response(pending)))!
            let login = try await client.finishLogin(pending, callback: .url(url))
            #expect(login.idToken.subject == "alice" && login.authorizationResponse.code == "the-code")
        }
    }

    @Test("forged, wrong iss/aud, expired, or a plain redirect: refused before the code is used")
    func refusals() async throws {
        let (client, transport) = try Self.client()
        let pending = try await Self.start(client, .queryJWT)
        C.tokens(transport, idToken: try C.idToken([("nonce", .string(try #require(pending.nonce).value))]))
        func finish(_ response: String) async throws -> LoginResult {
            try await client.finishLogin(pending, callback: .parameters("response=" + response))
        }
        await expectOIDCError(.invalidAuthorizationResponseJWT) { try await finish(F.tamper(try Self.response(pending))) }
        await expectOIDCError(.invalidAuthorizationResponseJWT) { try await finish(try Self.response(pending, [("iss", "https://evil.example")])) }
        await expectOIDCError(.invalidAuthorizationResponseJWT) { try await finish(try Self.response(pending, [("aud", "other")])) }
        await expectOIDCError(.invalidAuthorizationResponseJWT) {
            try await finish(try Self.response(pending, [("exp", .integer(Int64(F.start.timeIntervalSince1970) - 3600))]))
        }
        await expectOIDCError(.invalidAuthorizationResponseJWT) { try await finish(try Self.response(pending, [("exp", nil)])) }
        await expectOIDCError(.invalidAuthorizationResponseJWT) { try await finish(F.unsecured(["iss": .string(F.issuer), "aud": .string(F.clientID)])) }
        await expectOIDCError(.stateMismatch) { try await finish(try Self.response(pending, [("state", "other-state")])) }
        await expectOIDCError(.invalidAuthorizationResponseJWT) {
            try await client.finishLogin(pending, callback: .url(URL(string: "https://app.example.com/callback?code=the-code&state=\(pending.state)")!))
        }
        #expect(transport.calls(C.tokenURL) == 0)
        // An error inside the JWT is the provider's error.
        let denied = await #expect(throws: OIDCError.self) {
            try await finish(try Self.response(pending, [("code", nil), ("error", "access_denied")]))
        }
        #expect(denied?.code == .authorizationError && denied?.oauthError?.error == "access_denied")
    }

    @Test("form_post.jwt and fragment.jwt; an encrypted response JWT is decrypted first, and required once registered")
    func encrypted() async throws {
        let (client, transport) = try Self.client(encryption: ResponseEncryption(algorithm: .ecdhES, encryption: .a256GCM))
        let pending = try await Self.start(client, .formPostJWT)
        C.tokens(transport, idToken: try C.idToken([("nonce", .string(try #require(pending.nonce).value))]))
        let jwe = try CompactJWE.encrypt(
            try Self.response(pending), to: Self.decryptionKey.publicKey, algorithm: .ecdhES, encryption: .a256GCM, contentType: "JWT")
        _ = try await client.finishLogin(pending, callback: .parameters("response=" + jwe))
        await expectOIDCError(.invalidAuthorizationResponseJWT) {
            try await client.finishLogin(pending, callback: .parameters("response=" + (try Self.response(pending))))
        }
        // The POST body as a web framework hands it over (.formPost): accepted for form_post.jwt only.
        let posted = try await Self.start(client, .formPostJWT)
        C.tokens(transport, idToken: try C.idToken([("nonce", .string(try #require(posted.nonce).value))]))
        let postedJWE = try CompactJWE.encrypt(
            try Self.response(posted), to: Self.decryptionKey.publicKey, algorithm: .ecdhES, encryption: .a256GCM, contentType: "JWT")
        _ = try await client.finishLogin(posted, callback: .formPost("response=" + postedJWE))
        let queryMode = try await Self.start(client, .queryJWT)
        await expectOIDCError(.responseModeMismatch) { try await client.finishLogin(queryMode, callback: .formPost("response=" + postedJWE)) }
        let (plain, plainTransport) = try Self.client()
        let fragment = try await Self.start(plain, .fragmentJWT)
        C.tokens(plainTransport, idToken: try C.idToken([("nonce", .string(try #require(fragment.nonce).value))]))
        let response = try Self.response(fragment)
        _ = try await plain.finishLogin(fragment, callback: .url(URL(string: "https://app.example.com/callback#response=" + response)!))
        await expectOIDCError(.responseModeMismatch) {
            try await plain.finishLogin(fragment, callback: .url(URL(string: "https://app.example.com/callback?response=" + response)!))
        }
    }
}
