import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

@Suite("RFC 7662 introspection, its cache and the RFC 9701 JWT answer")
struct IntrospectionTests {
    static let endpoint = URL(string: "https://as.example/introspect")!
    static let partition = IntrospectionCache.Partition(endpoint: endpoint, clientID: Fixtures.clientID, answerForm: .json)

    final class Clock: Sendable {
        let now = Locked(Fixtures.now)
        func advance(_ seconds: TimeInterval) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }
        var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
    }

    static func json(_ text: String, type: String = "application/json") -> ScriptedTransport {
        ScriptedTransport { _ in TransportResponse(status: 200, headers: ["Content-Type": type], body: Array(text.utf8)) }
    }

    static func introspector(
        _ transport: ScriptedTransport, cache: IntrospectionCache? = nil, jwt: TokenIntrospector.JWTResponse? = nil,
        clock: @escaping @Sendable () -> Date = Fixtures.clock, observer: (any OIDCObserver)? = nil
    ) throws -> TokenIntrospector {
        try TokenIntrospector(
            endpoint: endpoint, authentication: .clientSecretBasic(clientID: Fixtures.clientID, secret: "s"),
            transport: transport, audience: .contains(Fixtures.audience), jwtResponse: jwt, cache: cache, clock: clock,
            observer: observer)
    }

    static let active =
        #"{"active":true,"scope":"read write","client_id":"app","username":"alice","token_type":"Bearer","exp":1800000300,"iat":1799999990,"sub":"u1","aud":["https://api.example"],"iss":"https://as.example","jti":"j1","tenant":"t9"}"#

    @Test("an active answer: request form and authentication, typed members, others reachable")
    func active() async throws {
        let transport = Self.json(Self.active)
        let result = try await Self.introspector(transport).introspect("TOKEN", hint: "access_token")
        let info = try #require(result.activeToken)
        #expect(info.scopes == ["read", "write"] && info.clientID == "app" && info.username == "alice" && info.subject == "u1")
        #expect(info.expiresAt == Date(timeIntervalSince1970: 1_800_000_300) && info.audience == ["https://api.example"])
        #expect(info.members["tenant"]?.stringValue == "t9")
        let request = try #require(transport.requests.first)
        #expect(request.bodyText == "token=TOKEN&token_type_hint=access_token")
        #expect(request.headers["Authorization"]?.hasPrefix("Basic ") == true)
        #expect(!String(describing: result).contains("TOKEN"))
    }

    @Test("active: false is a typed outcome, and validate turns it into inactive_token")
    func inactive() async throws {
        let transport = Self.json(#"{"active":false}"#)
        let result = try await Self.introspector(transport).introspect("T")
        guard case .inactive = result else { Issue.record("expected inactive"); return }
        await expectCode(.inactiveToken) { _ = try await Self.introspector(transport).validate("T") }
    }

    @Test("validate: required scopes, audience, expiry")
    func validate() async throws {
        _ = try await Self.introspector(Self.json(Self.active)).validate("T", requiredScopes: ["read"])
        await expectCode(.insufficientScope) { _ = try await Self.introspector(Self.json(Self.active)).validate("T", requiredScopes: ["admin"]) }
        await expectCode(.audienceMismatch) {
            _ = try await Self.introspector(Self.json(#"{"active":true,"aud":"https://other.example"}"#)).validate("T")
        }
        await expectCode(.expired) { _ = try await Self.introspector(Self.json(#"{"active":true,"exp":1799990000}"#)).validate("T") }
    }

    @Test("the audience rule is required: .contains refuses a token for another resource server, only .anyAudience lets it through")
    func audienceRule() async throws {
        let other = #"{"active":true,"aud":["https://other.example"],"scope":"read"}"#
        await expectCode(.audienceMismatch) { _ = try await Self.introspector(Self.json(other)).validate("T") }
        let any = try TokenIntrospector(
            endpoint: Self.endpoint, authentication: .clientSecretBasic(clientID: Fixtures.clientID, secret: "s"),
            transport: Self.json(other), audience: .anyAudience, clock: Fixtures.clock)
        #expect(try await any.validate("T", requiredScopes: ["read"]).audience == ["https://other.example"])
        let contains = try Self.introspector(Self.json(other))
        #expect(contains.audience == .contains(Fixtures.audience))
    }

    @Test(
        "malformed answers are typed errors",
        arguments: [
            #"{"scope":"a"}"#, #"{"active":"true"}"#, #"{"active":true,"exp":"soon"}"#, #"{"active":true,"aud":[1]}"#, "<html>", "",
        ])
    func malformed(body: String) async throws {
        await expectCode(.invalidIntrospectionResponse) { _ = try await Self.introspector(Self.json(body)).introspect("T") }
    }

    @Test("an error status is an endpoint error with the status")
    func errorStatus() async throws {
        let transport = ScriptedTransport { _ in TransportResponse(status: 401, body: Array(#"{"error":"invalid_client"}"#.utf8)) }
        do {
            _ = try await Self.introspector(transport).introspect("T")
            Issue.record("a 401 passed")
        } catch let error as OIDCError {
            #expect(error.code == .oauthError && error.httpStatus == 401)
        }
    }

    @Test("the cache: keyed by the token's hash, kept no longer than exp nor the maximum")
    func cache() async throws {
        let clock = Clock()
        let transport = Self.json(Self.active)
        let cache = IntrospectionCache(maximumLifetime: 200, clock: clock.read)
        let introspector = try Self.introspector(transport, cache: cache, clock: clock.read)
        _ = try await introspector.introspect("T1")
        _ = try await introspector.introspect("T1")
        #expect(transport.requests.count == 1)
        _ = try await introspector.introspect("T2")
        #expect(transport.requests.count == 2)
        clock.advance(200)  // the maximum lifetime
        _ = try await introspector.introspect("T1")
        #expect(transport.requests.count == 3)
        clock.advance(150)  // past the token's exp (1800000300) though within the maximum of the last entry
        _ = try await introspector.introspect("T1")
        #expect(transport.requests.count == 4)
        // The key is a SHA-256 digest, not the token.
        #expect(IntrospectionCache.Key(token: "T1", partition: Self.partition).digest.count == 32)
        #expect(IntrospectionCache.Key(token: "T1", partition: Self.partition).digest != Array("T1".utf8))
    }

    @Test("one cache shared by introspectors of two providers keeps their answers apart (keyed by endpoint and token hash)")
    func sharedCacheTwoProviders() async throws {
        let cache = IntrospectionCache(maximumLifetime: 200, clock: Fixtures.clock)
        let first = Self.json(Self.active)
        let second = Self.json(#"{"active":false}"#)
        let providerA = try Self.introspector(first, cache: cache)
        let providerB = try TokenIntrospector(
            endpoint: URL(string: "https://other-as.example/introspect")!,
            authentication: .clientSecretBasic(clientID: Fixtures.clientID, secret: "s"),
            transport: second, audience: .contains(Fixtures.audience), cache: cache, clock: Fixtures.clock)
        #expect(try await providerA.introspect("SAME").activeToken != nil)
        guard case .inactive = try await providerB.introspect("SAME") else {
            Issue.record("provider B got provider A's cached answer")
            return
        }
        #expect(second.requests.count == 1)
        #expect(try await providerA.introspect("SAME").activeToken != nil)
        #expect(first.requests.count == 1)
        #expect(await cache.count == 2)
    }

    @Test("the cache is bounded: expired entries go first, then the oldest")
    func bounded() async throws {
        let clock = Clock()
        let cache = IntrospectionCache(capacity: 3, maximumLifetime: 100, clock: clock.read)
        await cache.store(.inactive, for: "a", in: Self.partition)
        clock.advance(150)
        await cache.store(.inactive, for: "b", in: Self.partition)
        await cache.store(.inactive, for: "c", in: Self.partition)
        await cache.store(.inactive, for: "d", in: Self.partition)  // full: "a" (expired) is dropped
        #expect(await cache.count == 3)
        await cache.store(.inactive, for: "e", in: Self.partition)  // full, none expired: the oldest ("b") is dropped
        #expect(await cache.result(for: "b", in: Self.partition) == nil)
        #expect(await cache.result(for: "e", in: Self.partition) != nil)
        #expect(await cache.result(for: "c", in: Self.partition) != nil)
        #expect(await cache.count == 3)
    }

    static func introspectionJWT(typ: String = "token-introspection+jwt", aud: String = Fixtures.clientID, inner: String = active) throws -> String {
        let object = try JSONParser.parseObject(Array(inner.utf8), what: "test")
        let claims: JSONObject = [
            "iss": .string(Fixtures.issuer), "aud": .string(aud), "iat": .integer(1_800_000_000),
            "token_introspection": .object(object),
        ]
        return try JWT.sign(claims, key: try Fixtures.key("p256"), algorithm: .es256, header: ["typ": .string(typ)])
    }

    @Test("the JWT answer is verified: accepted when signed by the issuer for this client, refused otherwise")
    func jwtAnswer() async throws {
        let settings = TokenIntrospector.JWTResponse(issuer: Fixtures.issuer, keys: .keySet(try Fixtures.publicKeys()))
        let good = Self.json(try Self.introspectionJWT(), type: "application/token-introspection+jwt")
        let result = try await Self.introspector(good, jwt: settings).introspect("T")
        #expect(result.activeToken?.subject == "u1")
        #expect(good.requests.first?.headers["Accept"]?.hasPrefix("application/token-introspection+jwt") == true)

        await expectCode(.unexpectedTokenType) {
            _ = try await Self.introspector(Self.json(try Self.introspectionJWT(typ: "JWT"), type: "application/token-introspection+jwt"), jwt: settings)
                .introspect("T")
        }
        await expectCode(.audienceMismatch) {
            _ = try await Self.introspector(
                Self.json(try Self.introspectionJWT(aud: "someone-else"), type: "application/token-introspection+jwt"), jwt: settings
            ).introspect("T")
        }
        let foreign = TokenIntrospector.JWTResponse(
            issuer: Fixtures.issuer,
            keys: .keySet(JWKSet(keys: [try JWK(json: String(contentsOf: Fixtures.keysDirectory.appendingPathComponent("p384.pub.jwk"), encoding: .utf8))])))
        do {
            _ = try await Self.introspector(Self.json(try Self.introspectionJWT(), type: "application/token-introspection+jwt"), jwt: foreign).introspect("T")
            Issue.record("a JWT answer signed by an unknown key passed")
        } catch is OIDCError {}
        // A JWT answer nobody configured keys for.
        await expectCode(.invalidIntrospectionResponse) {
            _ = try await Self.introspector(Self.json(try Self.introspectionJWT(), type: "application/token-introspection+jwt")).introspect("T")
        }
    }

    @Test("an introspection JWT encrypted to the resource server (RFC 9701 §5) is decrypted, then verified as a signed one")
    func encryptedAnswer() async throws {
        let decryption = try JWK.generate(.rsa(bits: 2048))
        var settings = TokenIntrospector.JWTResponse(issuer: Fixtures.issuer, keys: .keySet(try Fixtures.publicKeys()))
        settings.decryptionKeys = JWEDecryptionKeys(keys: [decryption])
        func encrypted(_ jws: String) throws -> ScriptedTransport {
            Self.json(
                try CompactJWE.encrypt(
                    jws, to: decryption.publicKey, algorithm: .rsaOAEP256, encryption: .a256GCM,
                    contentType: "token-introspection+jwt"), type: "application/token-introspection+jwt")
        }
        let result = try await Self.introspector(try encrypted(try Self.introspectionJWT()), jwt: settings).introspect("T")
        #expect(result.activeToken?.subject == "u1")
        await expectCode(.audienceMismatch) {
            _ = try await Self.introspector(try encrypted(try Self.introspectionJWT(aud: "someone-else")), jwt: settings).introspect("T")
        }
        // Encrypted but unsigned: refused though it decrypts.
        let bare = try CompactJWE.encrypt(Self.active, to: decryption.publicKey, algorithm: .rsaOAEP256, encryption: .a256GCM)
        await expectCode(.invalidIntrospectionResponse) {
            _ = try await Self.introspector(Self.json(bare, type: "application/token-introspection+jwt"), jwt: settings).introspect("T")
        }
        // Registered encryption: a signed answer that is not encrypted is refused; without keys an encrypted one is.
        var registered = settings
        registered.encryption = ResponseEncryption(algorithm: .rsaOAEP256, encryption: .a256GCM)
        await expectCode(.invalidIntrospectionResponse) {
            _ = try await Self.introspector(Self.json(try Self.introspectionJWT(), type: "application/token-introspection+jwt"), jwt: registered).introspect(
                "T")
        }
        let keyless = TokenIntrospector.JWTResponse(issuer: Fixtures.issuer, keys: .keySet(try Fixtures.publicKeys()))
        await expectCode(.invalidIntrospectionResponse) {
            _ = try await Self.introspector(try encrypted(try Self.introspectionJWT()), jwt: keyless).introspect("T")
        }
    }

    @Test("with JWT answers configured, plain JSON is refused by default and accepted only through the named opt-out")
    func plainJSONDowngrade() async throws {
        let keys = IssuerKeys.keySet(try Fixtures.publicKeys())
        // Default settings: an unsigned answer is a downgrade, refused with its own code and never cached.
        let cache = IntrospectionCache(maximumLifetime: 60)
        let plain = Self.json(Self.active)
        let byDefault = try Self.introspector(plain, cache: cache, jwt: TokenIntrospector.JWTResponse(issuer: Fixtures.issuer, keys: keys))
        await expectCode(.unsignedIntrospectionResponse) { _ = try await byDefault.introspect("T") }
        await expectCode(.unsignedIntrospectionResponse) { _ = try await byDefault.validate("T") }
        #expect(plain.requests.count == 2)
        #expect(plain.requests.first?.headers["Accept"] == "application/token-introspection+jwt")
        await expectCode(.unsignedIntrospectionResponse) {
            _ = try await Self.introspector(
                Self.json(Self.active, type: "application/json; charset=utf-8"),
                jwt: .init(issuer: Fixtures.issuer, keys: keys, requirement: .required)
            ).introspect("T")
        }

        // The explicit opt-out accepts plain JSON and still verifies a JWT answer.
        let lenient = TokenIntrospector.JWTResponse(issuer: Fixtures.issuer, keys: keys, requirement: .preferredButJSONAccepted)
        #expect(try await Self.introspector(Self.json(Self.active), jwt: lenient).introspect("T").activeToken?.subject == "u1")
        let signed = Self.json(try Self.introspectionJWT(), type: "application/token-introspection+jwt")
        #expect(try await Self.introspector(signed, jwt: lenient).introspect("T").activeToken?.subject == "u1")
        await expectCode(.audienceMismatch) {
            _ = try await Self.introspector(
                Self.json(try Self.introspectionJWT(aud: "someone-else"), type: "application/token-introspection+jwt"), jwt: lenient
            ).introspect("T")
        }

        // Without JWT configuration nothing changes: plain JSON is the answer.
        #expect(try await Self.introspector(Self.json(Self.active)).introspect("T").activeToken?.subject == "u1")
    }
}

@Suite("No secret in dump")
struct RedactionTests {
    @Test("dump of an introspector, a token source and a JWT bearer assertion shows no secret or key")
    func dumps() throws {
        let introspector = try TokenIntrospector(
            endpoint: URL(string: "https://as.example/introspect")!,
            authentication: .clientSecretBasic(clientID: "rs", secret: "TOP-SECRET-1"),
            transport: ScriptedTransport { _ in TransportResponse(status: 500) }, audience: .anyAudience)
        let source = ClientCredentialsTokenSource(
            client: try TokenClient(
                tokenEndpoint: URL(string: "https://as.example/token")!,
                authentication: .clientSecretPost(clientID: "svc", secret: "TOP-SECRET-2"),
                transport: ScriptedTransport { _ in TransportResponse(status: 500) }))
        let key = try Fixtures.key("p256")
        let assertion = JWTBearerAssertion(issuer: "svc", subject: "alice", audience: "https://as.example", key: key, algorithm: .es256)
        var text = ""
        dump(introspector, to: &text)
        dump(source, to: &text)
        dump(assertion, to: &text)
        #expect(text.contains("rs") && text.contains("svc"))
        #expect(!text.contains("TOP-SECRET"))
        #expect(!text.contains("H1MdGXGN1m2Mjn1tTRuEUdSa"))  // the p256 test key's d
    }
}
