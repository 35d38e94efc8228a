import Foundation
import JOSE
import OIDC
import Testing

/// Records what the UserInfo endpoint answered (its media type and whether the body is a JWE), passing everything on.
final class UserInfoShapeTransport: HTTPTransport, Sendable {
    let inner: any HTTPTransport
    private let shapes = Locked([String]())
    init(_ inner: any HTTPTransport) { self.inner = inner }
    var last: String? { shapes.withLock { $0.last } }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let response = try await inner.send(request)
        if request.url.path.hasSuffix("/userinfo") {
            let body = String(decoding: response.body, as: UTF8.self)
            let shape = body.hasPrefix("{") ? "json" : (NestedJWT.isEncrypted(body) ? "jwe" : "jws")
            shapes.withLock { $0.append(shape) }
        }
        return response
    }
}

extension GlewlwydSerial {
    /// Against glewlwyd (Tests/Glewlwyd: the ENC client gets ID Tokens and UserInfo encrypted with
    /// RSA-OAEP-256 + A256GCM to its `pubkey` PEM, named by the key's RFC 7638 thumbprint).
    @Suite("glewlwyd: encrypted ID Tokens, encrypted and signed UserInfo", .enabled(if: Glewlwyd.isRunning), .serialized)
    struct GlewlwydEncryptionTests {
        func client(_ name: String, keys: [JWK], configure: (inout OIDCClient.Configuration) -> Void = { _ in }) async throws -> (
            OIDCClient, UserInfoShapeTransport
        ) {
            let transport = UserInfoShapeTransport(Glewlwyd.transport)
            var configuration = OIDCClient.Configuration()
            configuration.decryptionKeys = JWEDecryptionKeys(keys: keys)
            configure(&configuration)
            let client = try await OIDCClient.discover(
                issuer: try Glewlwyd.value("GLEWLWYD_ISSUER"), authentication: try Glewlwyd.authentication(name),
                transport: transport, configuration: configuration)
            return (client, transport)
        }

        func login(_ client: OIDCClient) async throws -> LoginResult {
            let pending = try await client.startLogin(LoginRequest(redirectURI: try Glewlwyd.redirectURI))
            return try await client.finishLogin(pending, callback: .url(try Glewlwyd.login(pending.url, scope: "openid")))
        }

        @Test("a login with an encrypted ID Token (PEM key without kid, JWE naming a thumbprint), then an encrypted UserInfo; refresh decrypts too")
        func encryptedLogin() async throws {
            let key = try JWK.keys(fromFileText: String(contentsOfFile: try Glewlwyd.value("GLEWLWYD_ENC_KEY_FILE"), encoding: .utf8))
            let (client, transport) = try await client("ENC", keys: key) {
                $0.idTokenEncryption = ResponseEncryption(algorithm: .rsaOAEP256, encryption: .a256GCM)
                $0.userInfoFormat = .encrypted(ResponseEncryption(algorithm: .rsaOAEP256, encryption: .a256GCM))
            }
            let login = try await login(client)
            #expect(login.idToken.audience == [try Glewlwyd.value("GLEWLWYD_ENC_CLIENT_ID")])
            let claims = try await client.userInfo(login.tokens)
            #expect(transport.last == "jwe")
            #expect(claims["sub"]?.stringValue == login.idToken.subject)
            let fresh = try await client.refresh(login.tokens)
            #expect(fresh.idToken.map(NestedJWT.isEncrypted) == false)
            // Without the key: a typed refusal, never a crash or an unverified token.
            let (keyless, _) = try await self.client("ENC", keys: [])
            await #expect(throws: OIDCError.self) { _ = try await self.login(keyless) }
        }

        /// The ENC client's private key as a JWK carrying a `kid` of its own, and another RSA key with its own `kid`.
        static func keysWithOwnKids() throws -> (own: JWK, other: JWK) {
            let pem = try #require(try JWK.keys(fromFileText: String(contentsOfFile: try Glewlwyd.value("GLEWLWYD_ENC_KEY_FILE"), encoding: .utf8)).first)
            // Written and read back as a key file, as `jwt-inspect key` or jwcrypto write one: with its kid.
            var own = pem
            own.keyID = "rp-enc-own-kid"
            var other = try JWK.generate(.rsa(bits: 2048))
            other.keyID = "rp-enc-other-kid"
            let reread = try JWK.keys(fromFileText: own.privateJWKString())
            return (try #require(reread.first), other)
        }

        @Test("glewlwyd's JWE kid is a hint: decrypted with a key file carrying its own kid, and with a key set of two keys with their own kids")
        func ownKids() async throws {
            let (own, other) = try Self.keysWithOwnKids()
            #expect(own.keyID == "rp-enc-own-kid")
            for keys in [[own], [other, own]] {
                let (client, transport) = try await client("ENC", keys: keys) {
                    $0.idTokenEncryption = ResponseEncryption(algorithm: .rsaOAEP256, encryption: .a256GCM)
                    $0.userInfoFormat = .encrypted(ResponseEncryption(algorithm: .rsaOAEP256, encryption: .a256GCM))
                }
                let login = try await login(client)
                #expect(login.idToken.audience == [try Glewlwyd.value("GLEWLWYD_ENC_CLIENT_ID")], "\(keys.count) keys")
                let claims = try await client.userInfo(login.tokens)
                #expect(transport.last == "jwe")
                #expect(claims["sub"]?.stringValue == login.idToken.subject)
            }
        }

        @Test("a plain ID Token when encryption is registered is refused; a signed UserInfo (Accept: application/jwt) is verified")
        func signedUserInfo() async throws {
            let (registered, _) = try await client("SECRET", keys: []) {
                $0.idTokenEncryption = ResponseEncryption(algorithm: .rsaOAEP256, encryption: .a256GCM)
            }
            let refused = await #expect(throws: OIDCError.self) { _ = try await self.login(registered) }
            #expect(refused?.code == .unencryptedIDToken)
            let (client, transport) = try await client("SECRET", keys: []) { $0.userInfoFormat = .signed }
            let login = try await login(client)
            let claims = try await client.userInfo(login.tokens)
            #expect(transport.last == "jws")
            #expect(claims["sub"]?.stringValue == login.idToken.subject)
        }

        @Test("sample-exchange-code --decryption-key / --id-token-encrypted-response-alg / --userinfo-signed against glewlwyd")
        func sample() async throws {
            let issuer = try Glewlwyd.value("GLEWLWYD_ISSUER")
            // A JWK Set file of two keys, each with its own kid (the right one second).
            let (own, other) = try Self.keysWithOwnKids()
            let setFile = FileManager.default.temporaryDirectory.appendingPathComponent("glewlwyd-enc-kids-\(UUID().uuidString).json")
            try "{\"keys\":[\(try other.privateJWKString()),\(try own.privateJWKString())]}".write(to: setFile, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: setFile) }
            for (name, extra) in [
                ("ENC", ["--decryption-key", try Glewlwyd.value("GLEWLWYD_ENC_KEY_FILE"), "--id-token-encrypted-response-alg", "RSA-OAEP-256"]),
                ("ENC", ["--decryption-key", setFile.path, "--id-token-encrypted-response-alg", "RSA-OAEP-256"]),
                ("SECRET", ["--userinfo-signed"]), ("SECRET", ["--id-token-encrypted-response-alg", "RSA-OAEP-256"]),
            ] {
                let clientID = try Glewlwyd.value("GLEWLWYD_\(name)_CLIENT_ID")
                let url = try await GlewlwydSampleTests.run(
                    "sample-authorize-url",
                    [
                        "--issuer", issuer, "--client-id", clientID,
                        "--redirect-uri", try Glewlwyd.redirectURI.absoluteString,
                    ])
                let started = try #require(url.json)
                let urlText = try #require(started["url"]?.stringValue)
                let redirect = try await Glewlwyd.login(try #require(URL(string: urlText)), scope: "openid")
                let code = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value)
                let run = try await GlewlwydSampleTests.run(
                    "sample-exchange-code",
                    [
                        "--issuer", issuer, "--client-id", clientID, "--client-secret", try Glewlwyd.value("GLEWLWYD_\(name)_CLIENT_SECRET"),
                        "--redirect-uri", try Glewlwyd.redirectURI.absoluteString, "--code", code,
                        "--code-verifier", try #require(started["code_verifier"]?.stringValue), "--nonce", try #require(started["nonce"]?.stringValue),
                    ] + extra)
                if extra.contains("--decryption-key") || extra == ["--userinfo-signed"] {
                    #expect(run.status == 0, "\(run.stderr)")
                    #expect(run.json?["userinfo"]?.objectValue?["sub"] == run.json?["id_token_claims"]?.objectValue?["sub"])
                } else {
                    #expect(run.status == 1 && run.stderr.contains("unencrypted_id_token"), "\(run.stderr)")
                }
            }
        }
    }
}
