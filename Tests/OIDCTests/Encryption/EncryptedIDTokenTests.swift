import Foundation
import JOSE
import Testing

@testable import OIDC

/// Encrypted ID Tokens (`id_token_encrypted_response_alg`/`_enc`) on every path: login, refresh, CIBA,
/// hybrid front channel; a plain ID Token refused once encryption is registered.
@Suite("OIDCClient: encrypted ID Tokens")
struct EncryptedIDTokenTests {
    typealias C = OIDCClientTests
    static let secret = "s3cret-s3cret-s3cret-s3cret-s3cret!"
    static let decryptionKey: JWK = {
        // A fixed test key would do as well; a fresh P-256 key keeps the test independent of fixtures.
        (try? JWK.generate(.ec(.p256))) ?? JWK(symmetricKey: Array(repeating: 1, count: 32))
    }()

    static func client(registered: ResponseEncryption?, keys: [JWK] = [decryptionKey], backchannel: Bool = false) throws -> (OIDCClient, ScriptedTransport) {
        let transport = ScriptedTransport()
        transport.json(F.jwksURL.absoluteString, F.jwks([try F.publicJWK("rsa2048", kid: "k1")]))
        var metadata = C.metadata()
        if backchannel { metadata.backchannelAuthenticationEndpoint = URL(string: OIDCClientDecoupledTests.backchannel) }
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        configuration.decryptionKeys = JWEDecryptionKeys(keys: keys)
        configuration.idTokenEncryption = registered
        let client = try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: F.clientID, secret: secret),
            transport: transport, configuration: configuration)
        return (client, transport)
    }

    static func encrypted(
        _ jws: String, to key: JWK = decryptionKey, _ algorithm: JWEKeyAlgorithm = .ecdhES,
        _ encryption: JWEContentEncryption = .a256GCM
    ) throws -> String {
        try CompactJWE.encrypt(jws, to: key.publicKey, algorithm: algorithm, encryption: encryption, contentType: "JWT")
    }

    @Test("login: the encrypted ID Token is decrypted, then validated; tokens keep the signed ID Token for later calls")
    func login() async throws {
        let (client, transport) = try Self.client(registered: ResponseEncryption(algorithm: .ecdhES, encryption: .a256GCM))
        let pending = try await client.startLogin(LoginRequest(redirectURI: C.redirectURI))
        let nonce = JSONValue.string(try #require(pending.nonce).value)
        C.tokens(transport, idToken: try Self.encrypted(try C.idToken([("nonce", nonce)])))
        let login = try await client.finishLogin(pending, callback: .url(C.callback(pending)))
        #expect(login.idToken.subject == "alice")
        #expect(login.tokens.idToken.map(NestedJWT.isEncrypted) == false)
        // UserInfo's sub check and refresh read that stored form.
        transport.json("https://op.example.com/userinfo", #"{"sub":"alice"}"#)
        #expect(try await client.userInfo(login.tokens)["sub"]?.stringValue == "alice")
        // The signature still counts: a forged inner token is refused although it decrypts.
        C.tokens(transport, idToken: try Self.encrypted(F.tamper(try C.idToken([("nonce", nonce)]))))
        await expectOIDCError(.invalidSignature) { try await client.finishLogin(pending, callback: .url(C.callback(pending))) }
        // A bare claim set, encrypted but unsigned: refused.
        C.tokens(
            transport,
            idToken: try CompactJWE.encrypt(
                F.claims([("nonce", nonce)]).jsonString(), to: Self.decryptionKey.publicKey,
                algorithm: .ecdhES, encryption: .a256GCM))
        await expectOIDCError(.malformedIDToken) { try await client.finishLogin(pending, callback: .url(C.callback(pending))) }
    }

    @Test("registered encryption: a plain ID Token, or other algorithms, are refused; no key is a typed error")
    func refusals() async throws {
        let registered = ResponseEncryption(algorithm: .ecdhES, encryption: .a256GCM)
        let (client, transport) = try Self.client(registered: registered)
        let pending = try await client.startLogin(LoginRequest(redirectURI: C.redirectURI))
        let nonce = JSONValue.string(try #require(pending.nonce).value)
        C.tokens(transport, idToken: try C.idToken([("nonce", nonce)]))
        await expectOIDCError(.unencryptedIDToken) { try await client.finishLogin(pending, callback: .url(C.callback(pending))) }
        C.tokens(transport, idToken: try Self.encrypted(try C.idToken([("nonce", nonce)]), .ecdhESA128KW, .a128GCM))
        await expectOIDCError(.idTokenDecryptionFailed) { try await client.finishLogin(pending, callback: .url(C.callback(pending))) }
        // Without registration, a plain ID Token is fine and an encrypted one needs a key.
        let (plain, plainTransport) = try Self.client(registered: nil, keys: [])
        let again = try await plain.startLogin(LoginRequest(redirectURI: C.redirectURI))
        let againNonce = JSONValue.string(try #require(again.nonce).value)
        C.tokens(plainTransport, idToken: try Self.encrypted(try C.idToken([("nonce", againNonce)])))
        await expectOIDCError(.idTokenDecryptionFailed) { try await plain.finishLogin(again, callback: .url(C.callback(again))) }
        C.tokens(plainTransport, idToken: try C.idToken([("nonce", againNonce)]))
        _ = try await plain.finishLogin(again, callback: .url(C.callback(again)))
    }

    @Test("key rotation: the old key still decrypts while the new one is published")
    func rotation() async throws {
        let newKey = try JWK.generate(.ec(.p256))
        var old = Self.decryptionKey, new = newKey
        old.keyID = "old"
        new.keyID = "new"
        let (client, transport) = try Self.client(registered: ResponseEncryption(algorithm: .ecdhES, encryption: .a256GCM), keys: [new, old])
        for key in [old, new] {
            let pending = try await client.startLogin(LoginRequest(redirectURI: C.redirectURI))
            C.tokens(transport, idToken: try Self.encrypted(try C.idToken([("nonce", .string(try #require(pending.nonce).value))]), to: key))
            #expect(try await client.finishLogin(pending, callback: .url(C.callback(pending))).idToken.subject == "alice")
        }
    }

    @Test("client secret: A128KW with the OpenID Connect Core §10.2 key")
    func clientSecret() async throws {
        let (client, transport) = try Self.client(registered: ResponseEncryption(algorithm: .a128KW, encryption: .a128CBCHS256), keys: [])
        let pending = try await client.startLogin(LoginRequest(redirectURI: C.redirectURI))
        let key = try #require(JWK.derivedFromClientSecret(Self.secret, algorithm: .a128KW, encryption: .a128CBCHS256))
        C.tokens(
            transport,
            idToken: try Self.encrypted(
                try C.idToken([("nonce", .string(try #require(pending.nonce).value))]), to: key,
                .a128KW, .a128CBCHS256))
        #expect(try await client.finishLogin(pending, callback: .url(C.callback(pending))).idToken.subject == "alice")
    }

    @Test("refresh, CIBA and the hybrid front channel decrypt too, and refuse a plain ID Token")
    func otherPaths() async throws {
        let registered = ResponseEncryption(algorithm: .ecdhES, encryption: .a256GCM)
        let (client, transport) = try Self.client(registered: registered, backchannel: true)
        // Refresh: the stored (decrypted) ID Token is compared with the new encrypted one.
        let original = TokenResponse(accessToken: "at-0", refreshToken: "rt-0", idToken: try Self.encrypted(try C.idToken()))
        C.tokens(transport, idToken: try Self.encrypted(try C.idToken()), refreshToken: "rt-1")
        let fresh = try await client.refresh(original)
        #expect(fresh.idToken.map(NestedJWT.isEncrypted) == false)
        C.tokens(transport, idToken: try C.idToken(), refreshToken: "rt-2")
        let refused = await #expect(throws: OIDCError.self) { try await client.refresh(fresh) }
        #expect(refused?.cause == .unencryptedIDToken || refused?.code == .unencryptedIDToken || refused?.reason.contains("unencrypted_id_token") == true)
        // CIBA.
        transport.json(OIDCClientDecoupledTests.backchannel, #"{"auth_req_id":"req-1","expires_in":120,"interval":1}"#)
        let started = try await client.startBackchannelLogin(DecoupledAuthenticationRequest(scope: "openid", hint: .loginHint("alice")))
        OIDCClientDecoupledTests.grant(transport, OIDCClientDecoupledTests.tokens(idToken: try Self.encrypted(try C.idToken())))
        guard case .loggedIn(let tokens, let idToken?) = try await client.finishBackchannelLogin(started, sleeper: OIDCClientDecoupledTests.noWait) else {
            Issue.record("not logged in"); return
        }
        #expect(idToken.subject == "alice" && tokens.idToken.map(NestedJWT.isEncrypted) == false)
        OIDCClientDecoupledTests.grant(transport, OIDCClientDecoupledTests.tokens(idToken: try C.idToken()))
        await expectOIDCError(.unencryptedIDToken) { try await client.finishBackchannelLogin(started, sleeper: OIDCClientDecoupledTests.noWait) }
        // Hybrid: the front-channel ID Token is decrypted and its c_hash checked.
        let pending = try await client.startLogin(LoginRequest(redirectURI: C.redirectURI, responseType: .codeIDToken))
        let nonce = JSONValue.string(try #require(pending.nonce).value)
        let cHash = JSONValue.string(TokenHash.compute("the-code", algorithm: .rs256))
        func callback(_ idToken: String) -> AuthorizationCallback {
            .url(URL(string: "https://app.example.com/callback#code=the-code&state=\(pending.state)&id_token=\(idToken)")!)
        }
        C.tokens(transport, idToken: try Self.encrypted(try C.idToken([("nonce", nonce)])))
        _ = try await client.finishLogin(pending, callback: callback(try Self.encrypted(try C.idToken([("nonce", nonce), ("c_hash", cHash)]))))
        await expectOIDCError(.unencryptedIDToken) {
            try await client.finishLogin(pending, callback: callback(try C.idToken([("nonce", nonce), ("c_hash", cHash)])))
        }
    }
}
