import Foundation
import JOSE
import Testing

@testable import OIDC

/// Records each request's body, then answers as the scripted transport does.
final class BodyRecordingTransport: HTTPTransport {
    let inner = ScriptedTransport()
    private let bodies = Locked([String: String]())
    func lastBody(for url: String) -> String? { bodies.withLock { $0[url] } }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if case .bytes(let body)? = request.body { bodies.withLock { $0[request.url.absoluteString] = String(decoding: body, as: UTF8.self) } }
        return try await inner.send(request)
    }
}

/// ``OIDCClient/startLogin(_:requestObject:)``: the authorization request as a request object (OpenID Connect
/// Core §6, RFC 9101), by value or by reference, signed or named unsigned, optionally encrypted to the provider.
@Suite("OIDCClient: logins with a request object")
struct OIDCClientRequestObjectTests {
    typealias C = OIDCClientTests

    static func query(_ url: URL) -> [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] { items[item.name] = item.value ?? "" }
        return items
    }

    /// The provider's JWK Set: its signing key `k1` and the given public encryption keys.
    static func providerKeys(_ encryptionKeys: [JWK]) throws -> String {
        F.jwks([try F.publicJWK("rsa2048", kid: "k1")] + encryptionKeys.map { JSONValue.object($0.publicKey.publicJWK).jsonString() })
    }

    static func encryptionKey(_ kid: String) throws -> JWK {
        var key = try JWK.generate(.rsa(bits: 2048))
        key.use = "enc"
        key.keyID = kid
        return key
    }

    @Test("by value: only client_id, request, response_type and scope outside; inside, every parameter, signed; the login finishes")
    func byValue() async throws {
        let (client, transport) = try C.client()
        let key = try JWK.generate(.ec(.p256))
        let pending = try await client.startLogin(
            LoginRequest(
                redirectURI: C.redirectURI, scopes: ["openid", "email"],
                requestObject: RequestObject.Configuration(signature: .signed(key: key, algorithm: .es256))))
        let outside = Self.query(pending.url)
        #expect(Set(outside.keys) == ["client_id", "request", "response_type", "scope"])
        #expect(outside["client_id"] == F.clientID && outside["response_type"] == "code" && outside["scope"] == "openid email")
        let jws = try CompactJWS(try #require(outside["request"]))
        try jws.verify(with: key.publicKey, policy: JWSVerificationPolicy(allowedAlgorithms: [.es256]))
        #expect(jws.header.type == RequestObject.mediaType)
        let claims = try JSONParser.parseObject(jws.payload, what: "claims")
        #expect(claims["state"]?.stringValue == pending.state && claims["nonce"]?.stringValue == pending.nonce?.value)
        #expect(claims["redirect_uri"]?.stringValue == C.redirectURI.absoluteString && claims["code_challenge"]?.stringValue != nil)
        #expect(claims["iss"]?.stringValue == F.clientID && claims["aud"]?.stringValue == F.issuer)
        // The redirect back is checked and the code redeemed as for any login.
        C.tokens(transport, idToken: try C.idToken([("nonce", .string(try #require(pending.nonce).value))]))
        let login = try await client.finishLogin(pending, callback: .url(C.callback(pending)))
        #expect(login.idToken.subject == "alice")
    }

    @Test("by reference: publish receives the request object and the URL carries its request_uri; an http URL off loopback is refused")
    func byReference() async throws {
        let (client, _) = try C.client()
        let published = Locked([String]())
        let options = RequestObject.Configuration(
            signature: .unsignedWithoutClientProof,
            delivery: .byReference { object in
                published.withLock { $0.append(object) }
                return URL(string: "https://app.example.com/request-objects/r1")!
            })
        let pending = try await client.startLogin(LoginRequest(redirectURI: C.redirectURI, requestObject: options))
        let outside = Self.query(pending.url)
        #expect(Set(outside.keys) == ["client_id", "request_uri", "response_type", "scope"])
        #expect(outside["request_uri"] == "https://app.example.com/request-objects/r1")
        let object = try #require(published.withLock { $0.first })
        let parts = object.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts[2].isEmpty)
        let claims = try JSONParser.parseObject(Base64URL.decode(String(parts[1])), what: "claims")
        #expect(claims["state"]?.stringValue == pending.state)

        let insecure = RequestObject.Configuration(
            signature: .unsignedWithoutClientProof,
            delivery: .byReference { _ in
                URL(string: "http://app.example.com/request-objects/r2")!
            })
        await expectOIDCError(.insecureURL) { _ = try await client.startLogin(LoginRequest(redirectURI: C.redirectURI, requestObject: insecure)) }
    }

    @Test("encrypted: to the provider's use: enc key, its key set fetched for every login, so a rotated key is used at once")
    func encryptedToTheCurrentKey() async throws {
        let (client, transport) = try C.client()
        let first = try Self.encryptionKey("enc-1"), second = try Self.encryptionKey("enc-2")
        transport.script(
            F.jwksURL.absoluteString,
            [
                .response(TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(try Self.providerKeys([first]).utf8))),
                .response(TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(try Self.providerKeys([second]).utf8))),
            ])
        let key = try JWK.generate(.ec(.p256))
        let options = RequestObject.Configuration(
            signature: .signed(key: key, algorithm: .es256),
            encryption: RequestObject.Encryption(algorithm: .rsaOAEP, encryption: .a128CBCHS256))
        var keyIDs: [String?] = []
        for (number, decryptionKey) in [first, second].enumerated() {
            let pending = try await client.startLogin(LoginRequest(redirectURI: C.redirectURI, requestObject: options))
            let jwe = try CompactJWE(try #require(Self.query(pending.url)["request"]))
            keyIDs.append(jwe.header.keyID)
            #expect(jwe.keyAlgorithmName == "RSA-OAEP" && jwe.encryptionName == "A128CBC-HS256" && jwe.header.contentType == "JWT")
            let inner = try NestedJWT.signedToken(
                in: try #require(Self.query(pending.url)["request"]), decryptionKeys: JWEDecryptionKeys(keys: [decryptionKey]))
            #expect(try JSONParser.parseObject(CompactJWS(inner).payload, what: "claims")["state"]?.stringValue == pending.state)
            #expect(transport.calls(F.jwksURL.absoluteString) == number + 1)
        }
        #expect(keyIDs == ["enc-1", "enc-2"])
    }

    @Test("encrypted: only to a use: enc key, never to the use: sig key listed first nor to a key without use beside them; only sig keys: refused")
    func encryptedOnlyToEncKeys() async throws {
        let encryption = try Self.encryptionKey("enc-1")
        var unlabelled = try JWK.generate(.ec(.p256)).publicKey  // no `use`, in a set whose other keys state theirs
        unlabelled.keyID = "unlabelled"
        let key = try JWK.generate(.ec(.p256))
        let options = RequestObject.Configuration(signature: .signed(key: key, algorithm: .es256), encryption: RequestObject.Encryption())
        let (client, transport) = try C.client()
        transport.json(F.jwksURL.absoluteString, try Self.providerKeys([unlabelled, encryption]))  // k1 (use: sig) first
        let pending = try await client.startLogin(LoginRequest(redirectURI: C.redirectURI, requestObject: options))
        let jwe = try CompactJWE(try #require(Self.query(pending.url)["request"]))
        #expect(jwe.header.keyID == "enc-1" && jwe.keyAlgorithmName == "RSA-OAEP-256")
        _ = try NestedJWT.signedToken(in: try #require(Self.query(pending.url)["request"]), decryptionKeys: JWEDecryptionKeys(keys: [encryption]))
        // Signing keys only (one stating use: sig, one without use beside it): a typed refusal, nothing encrypted.
        let (sigOnly, sigTransport) = try C.client()
        sigTransport.json(F.jwksURL.absoluteString, try Self.providerKeys([unlabelled]))
        await expectOIDCError(.requestObjectFailed) { _ = try await sigOnly.startLogin(LoginRequest(redirectURI: C.redirectURI, requestObject: options)) }
        // A provider that states no `use` at all: the first key whose type and alg admit encryption (not the RS256 one).
        let (unstated, unstatedTransport) = try C.client()
        var rs256 = try JWK.generate(.rsa(bits: 2048)).publicKey
        rs256.keyID = "rs256"
        rs256.algorithm = "RS256"
        unstatedTransport.json(F.jwksURL.absoluteString, F.jwks([rs256, unlabelled].map { JSONValue.object($0.publicJWK).jsonString() }))
        let plain = try await unstated.startLogin(LoginRequest(redirectURI: C.redirectURI, requestObject: options))
        #expect(try CompactJWE(try #require(Self.query(plain.url)["request"])).header.keyID == "unlabelled")
    }

    @Test("pushed: client_id and the request object go to the PAR endpoint, the URL carries only client_id and request_uri; by reference is refused")
    func pushed() async throws {
        let transport = BodyRecordingTransport()
        transport.inner.json(F.jwksURL.absoluteString, F.jwks([try F.publicJWK("rsa2048", kid: "k1")]))
        transport.inner.json("https://op.example.com/par", #"{"request_uri":"urn:ietf:params:oauth:request_uri:abc","expires_in":60}"#, status: 201)
        var metadata = C.metadata()
        metadata.pushedAuthorizationRequestEndpoint = URL(string: "https://op.example.com/par")
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        let dpopKey = try DPoPKey.generate()
        configuration.dpop = DPoPBinding(key: dpopKey)
        let client = try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: F.clientID, secret: "s3cret-s3cret-s3cret-s3cret-s3cret!"),
            transport: transport, configuration: configuration)
        let key = try JWK.generate(.ec(.p256))
        let pending = try await client.startLogin(
            LoginRequest(redirectURI: C.redirectURI, push: .always, requestObject: RequestObject.Configuration(signature: .signed(key: key, algorithm: .es256)))
        )
        #expect(Self.query(pending.url) == ["client_id": F.clientID, "request_uri": "urn:ietf:params:oauth:request_uri:abc"])
        let form = try #require(transport.lastBody(for: "https://op.example.com/par"))
        let fields = Dictionary(try FormURLEncoding.parse(form).map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(Set(fields.keys).isSubset(of: ["client_id", "request", "dpop_jkt"]) && fields["request"] != nil)
        let jws = try CompactJWS(try #require(fields["request"]))
        try jws.verify(with: key.publicKey, policy: JWSVerificationPolicy(allowedAlgorithms: [.es256]))
        let claims = try JSONParser.parseObject(jws.payload, what: "claims")
        #expect(claims["state"]?.stringValue == pending.state && claims["dpop_jkt"]?.stringValue == dpopKey.thumbprint)
        let byReference = RequestObject.Configuration(
            signature: .signed(key: key, algorithm: .es256),
            delivery: .byReference { _ in
                URL(string: "https://app.example.com/r")!
            })
        await expectOIDCError(.requestObjectFailed) {
            _ = try await client.startLogin(LoginRequest(redirectURI: C.redirectURI, push: .always, requestObject: byReference))
        }
    }

    @Test("encrypted, but the provider publishes only signing keys: refused, nothing sent")
    func noEncryptionKey() async throws {
        let (client, _) = try C.client()
        let options = RequestObject.Configuration(signature: .unsignedWithoutClientProof, encryption: RequestObject.Encryption())
        await expectOIDCError(.requestObjectFailed) { _ = try await client.startLogin(LoginRequest(redirectURI: C.redirectURI, requestObject: options)) }
    }

    @Test("a provider that says it does not take that delivery is refused before anything is published")
    func deliveryNotSupported() async throws {
        var metadata = C.metadata()
        metadata.requestParameterSupported = false
        metadata.requestURIParameterSupported = false
        let client = try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: F.clientID, secret: "s3cret-s3cret-s3cret-s3cret-s3cret!"),
            transport: ScriptedTransport())
        let key = try JWK.generate(.ec(.p256))
        await expectOIDCError(.requestObjectFailed) {
            _ = try await client.startLogin(
                LoginRequest(redirectURI: C.redirectURI, requestObject: RequestObject.Configuration(signature: .signed(key: key, algorithm: .es256))))
        }
        let published = Locked(0)
        let options = RequestObject.Configuration(
            signature: .signed(key: key, algorithm: .es256),
            delivery: .byReference { _ in
                published.withLock { $0 += 1 }
                return URL(string: "https://app.example.com/r")!
            })
        await expectOIDCError(.requestObjectFailed) { _ = try await client.startLogin(LoginRequest(redirectURI: C.redirectURI, requestObject: options)) }
        #expect(published.withLock { $0 } == 0)
    }
}
