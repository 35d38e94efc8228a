import Foundation
import JOSE
import Testing

@testable import OIDC

/// `OIDCClient` with the FAPI 2.0 profile on, against a routed test-double transport: PAR on the
/// front channel, DPoP proofs on token, refresh and UserInfo, and every profile violation refused
/// when the client is made, before any request.
@Suite("OIDCClient with the FAPI 2.0 profile")
struct OIDCClientFAPITests {
    typealias F = IDTokenFixtures
    static let redirectURI = URL(string: "https://app.example.com/callback")!

    static func metadata() -> ProviderMetadata {
        var metadata = OIDCClientTests.metadata(issParameter: true)
        metadata.pushedAuthorizationRequestEndpoint = URL(string: "https://op.example.com/par")
        metadata.idTokenSigningAlgValuesSupported = ["ES256"]
        return metadata
    }

    static func authentication() throws -> ClientAuthentication {
        .privateKeyJWT(clientID: F.clientID, key: try JWK.generate(.ec(.p256)), algorithm: .es256)
    }

    static func configuration(dpop: Bool = true) throws -> OIDCClient.Configuration {
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        configuration.fapi2Profile = true
        configuration.dpop = dpop ? DPoPBinding(key: try DPoPKey.generate()) : nil
        configuration.assertionAudience = .endpointURL
        return configuration
    }

    /// PAR, token (type `tokenType`), JWKS and UserInfo answers; every request recorded.
    static func transport(tokenType: String = "DPoP", idToken: @escaping @Sendable () -> String?) throws -> CannedTransport {
        let jwks = F.jwks([try F.publicJWK("p256", kid: "k1")])
        return CannedTransport { request in
            func json(_ text: String, _ status: Int = 200) -> TransportResponse {
                TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(text.utf8))
            }
            switch request.url.path {
            case "/par": return json(#"{"request_uri":"urn:ietf:params:oauth:request_uri:abc","expires_in":60}"#, 201)
            case "/jwks": return json(jwks)
            case "/userinfo": return json(#"{"sub":"alice","email":"a@example.com"}"#)
            case "/token":
                var object: JSONObject = ["access_token": "at-1", "token_type": .string(tokenType), "expires_in": 300, "refresh_token": "rt-1"]
                if let text = idToken() { object["id_token"] = .string(text) }
                return json(object.jsonString())
            default: return json(#"{"error":"not_found"}"#, 404)
            }
        }
    }

    static func payload(_ jwt: String) throws -> JSONObject {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        return try JSONParser.parseObject(try Base64URL.decode(String(parts[1])), what: "test")
    }

    static func header(_ jwt: String) throws -> JSONObject {
        try JSONParser.parseObject(try Base64URL.decode(String(try #require(jwt.split(separator: ".").first))), what: "test")
    }

    @Test("each non-compliant configuration is a typed fapi_* error when the client is made: no request is sent")
    func refusesBeforeSending() throws {
        let transport = try Self.transport { nil }
        var noPAR = Self.metadata()
        noPAR.pushedAuthorizationRequestEndpoint = nil
        var noIss = Self.metadata()
        noIss.authorizationResponseIssParameterSupported = false
        var rs256 = try Self.configuration()
        rs256.allowedAlgorithms = [.rs256]
        var skew = try Self.configuration()
        skew.leeway = 120
        let cases: [(OIDCError.Code, ProviderMetadata, ClientAuthentication, OIDCClient.Configuration)] = [
            (.fapiSenderConstraintRequired, Self.metadata(), try Self.authentication(), try Self.configuration(dpop: false)),
            (
                .fapiClientAuthenticationNotAllowed, Self.metadata(), .clientSecretBasic(clientID: F.clientID, secret: "s3cret-s3cret-s3cret-s3cret"),
                try Self.configuration()
            ),
            (
                .fapiAlgorithmNotAllowed, Self.metadata(), .privateKeyJWT(clientID: F.clientID, key: try F.privateKey("rsa2048", kid: nil), algorithm: .rs256),
                try Self.configuration()
            ),
            (.fapiPARRequired, noPAR, try Self.authentication(), try Self.configuration()),
            (.fapiIssuerParameterRequired, noIss, try Self.authentication(), try Self.configuration()),
            (.fapiAlgorithmNotAllowed, Self.metadata(), try Self.authentication(), rs256),
            (.fapiClockSkewTooLarge, Self.metadata(), try Self.authentication(), skew),
        ]
        for (code, metadata, authentication, configuration) in cases {
            let error = #expect(throws: OIDCError.self) {
                _ = try OIDCClient(metadata: metadata, authentication: authentication, transport: transport, configuration: configuration)
            }
            #expect(error?.code == code)
        }
        // A client that requires iss itself satisfies the rule for a provider that does not advertise it.
        var requiring = try Self.configuration()
        requiring.requireIssuerParameter = true
        _ = try OIDCClient(metadata: noIss, authentication: try Self.authentication(), transport: transport, configuration: requiring)
        // The same settings without the profile make a client.
        var off = try Self.configuration(dpop: false)
        off.fapi2Profile = false
        _ = try OIDCClient(metadata: Self.metadata(), authentication: try Self.authentication(), transport: transport, configuration: off)
        #expect(transport.requests.isEmpty)
    }

    @Test("a request that breaks the profile (no PKCE, implicit) is refused at login start, before the push")
    func refusesRequest() async throws {
        let transport = try Self.transport { nil }
        let client = try OIDCClient(
            metadata: Self.metadata(), authentication: try Self.authentication(), transport: transport,
            configuration: try Self.configuration())
        await expectOIDCError(.fapiPKCERequired) {
            // A LoginRequest always has S256 PKCE: the one path behind startLogin, with a request built without it.
            var request = try OAuthRequest(clientID: client.clientID, redirectURI: Self.redirectURI)
            request.pkce = nil
            _ = try await client.start(request, push: .always)
        }
        await expectOIDCError(.fapiResponseTypeNotAllowed) {
            try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI, responseType: .codeIDToken, push: .always))
        }
        // The front-channel start, asked for by name, is refused under the profile.
        await expectOIDCError(.pushedAuthorizationRequired) {
            try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI, push: .never))
        }
        #expect(transport.requests.isEmpty)
    }

    @Test("the profile login: PAR (client_id + request_uri on the front channel), DPoP on token, refresh and UserInfo")
    func login() async throws {
        let nonce = Locked<String?>(nil)
        let key = try F.privateKey("p256", kid: "k1")
        let transport = try Self.transport {
            try? F.sign(F.claims([("nonce", nonce.withLock { $0 }.map { .string($0) })]), key: key, .es256)
        }
        let configuration = try Self.configuration()
        let binding = try #require(configuration.dpop)
        let client = try OIDCClient(
            metadata: Self.metadata(), authentication: try Self.authentication(), transport: transport,
            configuration: configuration)
        let pending = try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI, scopes: ["openid", "email"], push: .always))
        nonce.withLock { $0 = pending.nonce?.value }
        // Front channel: only client_id and request_uri.
        let items = try #require(URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(items.map(\.name) == ["client_id", "request_uri"])
        #expect(items.last?.value == "urn:ietf:params:oauth:request_uri:abc")
        #expect(pending.url.absoluteString.hasPrefix("https://op.example.com/authorize?"))
        // The push carried the request, the PKCE challenge, dpop_jkt and the client assertion (aud = PAR endpoint).
        let push = try #require(transport.requests.first)
        #expect(push.url.path == "/par")
        let form = Dictionary(try FormURLEncoding.parse(push.bodyText).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(form["code_challenge_method"] == "S256")
        #expect(form["state"] == pending.state)
        #expect(form["dpop_jkt"] == binding.key.thumbprint)
        #expect(try Self.payload(try #require(form["client_assertion"]))["aud"]?.stringValue == "https://op.example.com/par")

        let callback = URL(string: "https://app.example.com/callback?code=c1&state=\(pending.state)&iss=https%3A%2F%2Fop.example.com")!
        let login = try await client.finishLogin(pending, callback: .url(callback))
        #expect(login.tokens.tokenType == "DPoP")
        let token = try #require(transport.requests.first { $0.url.path == "/token" })
        let proof = try #require(token.headers["DPoP"])
        #expect(try Self.header(proof)["typ"]?.stringValue == "dpop+jwt")
        #expect(try Self.payload(proof)["htm"]?.stringValue == "POST")
        #expect(try Self.payload(proof)["htu"]?.stringValue == "https://op.example.com/token")

        let claims = try await client.userInfo(login.tokens)
        #expect(claims["sub"]?.stringValue == "alice")
        let userinfo = try #require(transport.requests.last)
        #expect(userinfo.url.path == "/userinfo")
        #expect(userinfo.headers["Authorization"] == "DPoP at-1")
        let resourceProof = try Self.payload(try #require(userinfo.headers["DPoP"]))
        #expect(resourceProof["htm"]?.stringValue == "GET")
        #expect(resourceProof["ath"]?.stringValue == "R8PYaIQdcYEdkSc9TeGyiUqSAedmCQuOQImPRh1E3HI")  // SHA-256 of "at-1", computed outside

        _ = try await client.refresh(login.tokens)
        let refresh = try #require(transport.requests.last)
        #expect(refresh.url.path == "/token" && refresh.bodyText.contains("grant_type=refresh_token"))
        #expect(refresh.headers["DPoP"] != nil && refresh.headers["DPoP"] != proof)
    }

    @Test("under the profile a Bearer token_type is refused (the token was to be DPoP-bound)")
    func bearerRefused() async throws {
        let nonce = Locked<String?>(nil)
        let key = try F.privateKey("p256", kid: "k1")
        let transport = try Self.transport(tokenType: "Bearer") {
            try? F.sign(F.claims([("nonce", nonce.withLock { $0 }.map { .string($0) })]), key: key, .es256)
        }
        let client = try OIDCClient(
            metadata: Self.metadata(), authentication: try Self.authentication(), transport: transport,
            configuration: try Self.configuration())
        let pending = try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI, push: .always))
        nonce.withLock { $0 = pending.nonce?.value }
        let callback = URL(string: "https://app.example.com/callback?code=c1&state=\(pending.state)&iss=https%3A%2F%2Fop.example.com")!
        await expectOIDCError(.dpopTokenTypeMismatch) { try await client.finishLogin(pending, callback: .url(callback)) }
    }
}
