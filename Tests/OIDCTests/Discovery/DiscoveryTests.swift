import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("Provider discovery")
struct DiscoveryTests {
    static func document(issuer: String = IDTokenFixtures.issuer, drop: [String] = [], extra: String = "") -> String {
        var members: [(String, String)] = [
            ("issuer", "\"\(issuer)\""),
            ("authorization_endpoint", "\"\(issuer)/authorize\""),
            ("token_endpoint", "\"\(issuer)/token\""),
            ("jwks_uri", "\"\(issuer)/jwks\""),
            ("response_types_supported", #"["code","code id_token"]"#),
            ("subject_types_supported", #"["public"]"#),
            ("id_token_signing_alg_values_supported", #"["RS256","ES256","none"]"#),
            ("revocation_endpoint", "\"\(issuer)/revoke\""),
            ("introspection_endpoint", "\"\(issuer)/introspect\""),
            ("end_session_endpoint", "\"\(issuer)/logout\""),
            ("authorization_response_iss_parameter_supported", "true"),
            ("code_challenge_methods_supported", #"["S256"]"#),
            ("mtls_endpoint_aliases", "{\"token_endpoint\":\"https://mtls.example.com/token\"}"),
        ]
        members.removeAll { drop.contains($0.0) }
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + extra + "}"
    }

    let wellKnown = IDTokenFixtures.issuer + "/.well-known/openid-configuration"

    @Test("fetches, types the registered fields and keeps unknown ones in order")
    func fetch() async throws {
        let transport = ScriptedTransport()
        transport.json(wellKnown, Self.document(extra: #","x_vendor":{"a":[1,2]},"another_field":"b""#))
        let metadata = try await Discovery(transport: transport).metadata(for: IDTokenFixtures.issuer)
        #expect(metadata.issuer == IDTokenFixtures.issuer)
        #expect(metadata.jwksURI?.absoluteString == IDTokenFixtures.issuer + "/jwks")
        #expect(metadata.revocationEndpoint?.absoluteString == IDTokenFixtures.issuer + "/revoke")
        #expect(metadata.introspectionEndpoint != nil)
        #expect(metadata.endSessionEndpoint != nil)
        #expect(metadata.authorizationResponseIssParameterSupported == true)
        #expect(metadata.mtlsEndpointAliases?["token_endpoint"] == "https://mtls.example.com/token")
        #expect(metadata.idTokenSigningAlgorithms == [.rs256, .es256])
        #expect(metadata.additionalFields.names == ["x_vendor", "another_field"])
        #expect(metadata.additionalFields["x_vendor"] == ["a": [1, 2]])
        #expect(metadata.additionalFields["issuer"] == nil)
    }

    @Test("Codable round trip keeps unknown fields")
    func codable() throws {
        let metadata = try ProviderMetadata(jsonBytes: Array(Self.document(extra: #","x_vendor":{"a":[1,2.5,null,true]}"#).utf8))
        let encoded = try JSONEncoder().encode(metadata)
        let decoded = try JSONDecoder().decode(ProviderMetadata.self, from: encoded)
        #expect(decoded == metadata)
        #expect(decoded.additionalFields["x_vendor"] == ["a": [1, 2.5, nil, true]])
    }

    @Test("the issuer in the document must equal the requested issuer exactly")
    func issuerMismatch() async throws {
        let transport = ScriptedTransport()
        transport.json(wellKnown, Self.document(issuer: "https://op.example.com/"))
        await expectOIDCError(.discoveryIssuerMismatch) { try await Discovery(transport: transport).metadata(for: IDTokenFixtures.issuer) }
        let other = ScriptedTransport()
        other.json(wellKnown, Self.document(issuer: "https://evil.example.com"))
        await expectOIDCError(.discoveryIssuerMismatch) { try await Discovery(transport: other).metadata(for: IDTokenFixtures.issuer) }
    }

    @Test("http is refused for a non-loopback issuer, before any request")
    func httpRefused() async throws {
        let transport = ScriptedTransport()
        await expectOIDCError(.insecureURL) { try await Discovery(transport: transport).metadata(for: "http://op.example.com") }
        await expectOIDCError(.invalidIssuerURL) { try await Discovery(transport: transport).metadata(for: "ftp://op.example.com") }
        await expectOIDCError(.invalidIssuerURL) { try await Discovery(transport: transport).metadata(for: "op.example.com") }
        await expectOIDCError(.invalidIssuerURL) { try await Discovery(transport: transport).metadata(for: "https://op.example.com?x=1") }
        #expect(transport.totalCalls == 0)
    }

    @Test("http is allowed on loopback", arguments: ["http://127.0.0.1:9000", "http://localhost:9000", "http://[::1]:9000", "http://127.10.0.3"])
    func loopback(_ issuer: String) async throws {
        let transport = ScriptedTransport()
        transport.json(issuer + "/.well-known/openid-configuration", Self.document(issuer: issuer))
        let metadata = try await Discovery(transport: transport).metadata(for: issuer)
        #expect(metadata.issuer == issuer)
    }

    @Test("loopback detection")
    func loopbackDetection() {
        #expect(SecureURLPolicy.isLoopback(host: "127.0.0.1"))
        #expect(SecureURLPolicy.isLoopback(host: "[::1]"))
        #expect(SecureURLPolicy.isLoopback(host: "LOCALHOST"))
        #expect(!SecureURLPolicy.isLoopback(host: "127.0.0.1.evil.com"))
        #expect(!SecureURLPolicy.isLoopback(host: "128.0.0.1"))
        #expect(!SecureURLPolicy.isLoopback(host: "localhost.evil.com"))
    }

    @Test(
        "names under localhost are not loopback: no http exception for them anywhere (one rule)",
        arguments: ["app.localhost", "evil.localhost", "a.b.LOCALHOST"])
    func subdomainsOfLocalhost(_ host: String) throws {
        #expect(!SecureURLPolicy.isLoopback(host: host))
        let url = try #require(URL(string: "http://\(host):8080/cb"))
        #expect(throws: OIDCError.self) { try SecureURLPolicy.check(url, what: "the URL") }
        #expect(throws: OIDCError.self) { try SecureURLPolicy.checkEndpoint(url, .token, issuer: nil) }
        let request = try OAuthRequest(clientID: "c", redirectURI: try #require(URL(string: "https://rp.example/cb")))
        #expect(throws: OIDCError.self) { _ = try request.authorizationURL(at: url) }
        // The loopback names themselves keep their exception.
        for loopback in ["localhost", "127.0.0.1", "127.1.2.3", "[::1]"] {
            let allowed = try #require(URL(string: "http://\(loopback):8080/cb"))
            try SecureURLPolicy.check(allowed, what: "the URL")
            _ = try request.authorizationURL(at: allowed)
        }
    }

    @Test("typed errors: non-200, not JSON, missing fields, wrong types, transport")
    func failures() async throws {
        let issuer = IDTokenFixtures.issuer
        let t1 = ScriptedTransport()
        t1.json(wellKnown, "{}", status: 500)
        do {
            _ = try await Discovery(transport: t1).metadata(for: issuer)
        } catch let error as OIDCError {
            #expect(error.code == .discoveryHTTPStatus)
            #expect(error.httpStatus == 500)
        }
        let t2 = ScriptedTransport()
        t2.json(wellKnown, "<html>not json</html>")
        await expectOIDCError(.discoveryInvalidDocument) { try await Discovery(transport: t2).metadata(for: issuer) }
        let t3 = ScriptedTransport()
        t3.json(wellKnown, Self.document(drop: ["jwks_uri"]))
        await expectOIDCError(.discoveryMissingField) { try await Discovery(transport: t3).metadata(for: issuer) }
        let t4 = ScriptedTransport()
        t4.json(wellKnown, Self.document(drop: ["issuer"]))
        await expectOIDCError(.discoveryMissingField) { try await Discovery(transport: t4).metadata(for: issuer) }
        let t5 = ScriptedTransport()
        t5.json(wellKnown, Self.document(drop: ["scopes_supported"], extra: #","scopes_supported":"openid""#))
        await expectOIDCError(.discoveryInvalidDocument) { try await Discovery(transport: t5).metadata(for: issuer) }
        let t6 = ScriptedTransport()
        t6.script(wellKnown, [.failure(.connectionFailed("refused"))])
        await expectOIDCError(.discoveryTransportFailed) { try await Discovery(transport: t6).metadata(for: issuer) }
        let t7 = ScriptedTransport()
        t7.json(wellKnown, Self.document(drop: ["jwks_uri"], extra: #","jwks_uri":"http://op.example.com/jwks""#))
        await expectOIDCError(.insecureURL) { try await Discovery(transport: t7).metadata(for: issuer) }
    }

    @Test("documents are cached per issuer for the TTL; concurrent first calls share a fetch")
    func cache() async throws {
        let transport = ScriptedTransport(delay: .milliseconds(20))
        transport.json(wellKnown, Self.document())
        let other = "https://other.example.com"
        transport.json(other + "/.well-known/openid-configuration", Self.document(issuer: other))
        let clock = TestClock()
        let discovery = Discovery(transport: transport, timeToLive: 600, clock: clock.now)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { _ = try await discovery.metadata(for: IDTokenFixtures.issuer) } }
            try await group.waitForAll()
        }
        #expect(transport.calls(wellKnown) == 1)
        _ = try await discovery.metadata(for: other)
        clock.advance(by: 599)
        _ = try await discovery.metadata(for: IDTokenFixtures.issuer)
        #expect(transport.calls(wellKnown) == 1)
        clock.advance(by: 2)
        _ = try await discovery.metadata(for: IDTokenFixtures.issuer)
        #expect(transport.calls(wellKnown) == 2)
        #expect(transport.calls(other + "/.well-known/openid-configuration") == 1)
        await discovery.invalidate(issuer: IDTokenFixtures.issuer)
        _ = try await discovery.metadata(for: IDTokenFixtures.issuer)
        #expect(transport.calls(wellKnown) == 3)
    }

    @Test("an issuer with a path keeps it; a trailing slash is not doubled")
    func issuerWithPath() throws {
        #expect(
            try Discovery.configurationURL(for: "https://op.example.com/tenant/a").absoluteString
                == "https://op.example.com/tenant/a/.well-known/openid-configuration")
        #expect(try Discovery.configurationURL(for: "https://op.example.com/").absoluteString == "https://op.example.com/.well-known/openid-configuration")
    }

    @Test("a validator configured from metadata uses the provider's algorithms")
    func configFromMetadata() throws {
        let metadata = try ProviderMetadata(jsonBytes: Array(Self.document().utf8))
        let config = IDTokenValidator.Configuration(metadata: metadata, clientID: "c")
        #expect(config.effectiveAlgorithms == [.rs256, .es256])
        #expect(config.issuer == IDTokenFixtures.issuer)
    }
}

@Suite("Validator from discovery")
struct ValidatorFromDiscoveryTests {
    @Test("discovery, key cache and validator together")
    func endToEnd() async throws {
        let transport = ScriptedTransport()
        let issuer = IDTokenFixtures.issuer
        transport.json(issuer + "/.well-known/openid-configuration", DiscoveryTests.document())
        transport.json(issuer + "/jwks", F.jwks([try F.publicJWK("p256", kid: "ec1")]))
        let clock = TestClock()
        let validator = try await IDTokenValidator.discover(
            issuer: issuer, clientID: F.clientID, discovery: Discovery(transport: transport),
            keyCaches: JWKSetCacheRegistry(transport: transport)
        ) { $0.clock = clock.now }
        #expect(validator.config.effectiveAlgorithms == [.rs256, .es256])
        let token = try F.sign(F.claims(), key: F.privateKey("p256", kid: "ec1"), .es256)
        let idToken = try await validator.validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
        #expect(idToken.subject == "alice")
        // The document advertises "none": it is still never accepted.
        await expectOIDCError(.unsecuredToken) { try await validator.validate(F.unsecured(F.claims()), expecting: IDTokenExpectations(nonce: .noNonceSent)) }
    }
}
