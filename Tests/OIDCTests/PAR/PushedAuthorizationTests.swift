import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("PAR (RFC 9126) and request objects (RFC 9101)")
struct PushedAuthorizationTests {
    static let issuer = "https://as.example"
    static let par = URL(string: "https://as.example/par")!
    static let token = URL(string: "https://as.example/token")!
    static let authorize = URL(string: "https://as.example/authorize")!
    static let parameters: [(name: String, value: String)] = [
        ("response_type", "code"), ("client_id", "app"), ("redirect_uri", "https://app.example/cb"), ("scope", "openid profile"),
        ("state", "st"), ("nonce", "no"), ("code_challenge", "cc"), ("code_challenge_method", "S256"), ("max_age", "300"),
        ("claims", #"{"id_token":{"acr":{"essential":true}}}"#),
    ]

    @Test("push: the parameters, client authentication and dpop_jkt are posted; 201 gives request_uri and expires_in")
    func push() async throws {
        let transport = CannedTransport(status: 201, body: #"{"request_uri":"urn:ietf:params:oauth:request_uri:6esc_11ACC5bwc014ltc14eY22c","expires_in":60}"#)
        let dpop = DPoPBinding(key: try DPoPKey.generate())
        let client = try TokenClient(
            tokenEndpoint: Self.token, issuer: Self.issuer, authentication: .clientSecretPost(clientID: "app", secret: "s"),
            transport: transport, dpop: dpop)
        let pushed = try await client.pushAuthorizationRequest(Self.parameters, endpoint: Self.par)
        #expect(pushed == PushedAuthorizationResponse(requestURI: "urn:ietf:params:oauth:request_uri:6esc_11ACC5bwc014ltc14eY22c", expiresIn: 60))
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST" && request.url == Self.par && !request.followsRedirects)
        let form = formFields(request)
        for (name, value) in Self.parameters { #expect(form[name] == value, "\(name)") }
        #expect(form["dpop_jkt"] == dpop.key.thumbprint)
        #expect(form["client_secret"] == "s")
        #expect(request.bodyText.components(separatedBy: "client_id=").count == 2, "client_id once")
        #expect(request.headers["DPoP"] == nil)

        let url = try PushedAuthorization.authorizationURL(authorizationEndpoint: Self.authorize, clientID: "app", requestURI: pushed.requestURI)
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(items.map(\.name) == ["client_id", "request_uri"])
        #expect(items.last?.value == pushed.requestURI)
    }

    @Test("push refusals: request_uri in the parameters, a foreign dpop_jkt, an OAuth error, a response without request_uri or expires_in")
    func pushErrors() async throws {
        let ok = CannedTransport(status: 201, body: #"{"request_uri":"urn:x","expires_in":60}"#)
        let client = try TokenClient(
            tokenEndpoint: Self.token, issuer: Self.issuer, authentication: .none(clientID: "app"), transport: ok,
            dpop: DPoPBinding(key: try DPoPKey.generate()))
        await #expect(throws: OIDCError.self) { _ = try await client.pushAuthorizationRequest([("request_uri", "x")], endpoint: Self.par) }
        await #expect(throws: OIDCError.self) { _ = try await client.pushAuthorizationRequest([("dpop_jkt", "other")], endpoint: Self.par) }
        #expect(ok.requests.isEmpty)
        let answers: [(Int, String, OIDCError.Code)] = [
            (400, #"{"error":"invalid_request","error_description":"bad"}"#, .oauthError),
            (201, #"{"expires_in":60}"#, .invalidPushedAuthorizationResponse),
            (201, #"{"request_uri":"urn:x","expires_in":0}"#, .invalidPushedAuthorizationResponse),
            (201, #"{"request_uri":"urn:x","expires_in":"60"}"#, .invalidPushedAuthorizationResponse),
            (201, "<html>", .invalidEndpointResponse),
            (403, "", .emptyEndpointResponse),
        ]
        for (status, body, code) in answers {
            let transport = CannedTransport(status: status, body: body)
            let client = try TokenClient(tokenEndpoint: Self.token, issuer: Self.issuer, authentication: .none(clientID: "app"), transport: transport)
            do {
                _ = try await client.pushAuthorizationRequest(Self.parameters, endpoint: Self.par)
                Issue.record("expected \(code) for \(status) \(body)")
            } catch let error as OIDCError {
                #expect(error.code == code, "\(status) \(body): \(error)")
            }
        }
    }

    @Test(
        "request object: typ oauth-authz-req+jwt, iss = client_id, aud = issuer, iat = nbf, exp, jti, every parameter; verifies with the key",
        arguments: [JWSAlgorithm.es256, .ps256, .eddsa])
    func requestObject(_ algorithm: JWSAlgorithm) throws {
        let spec: JWK.GenerationSpec = algorithm == .es256 ? .ec(.p256) : algorithm == .eddsa ? .ed25519 : .rsa(bits: 2048)
        var key = try JWK.generate(spec)
        key.keyID = "k1"
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let jwt = try RequestObject.sign(
            parameters: Self.parameters, clientID: "app", issuer: Self.issuer, key: key, algorithm: algorithm,
            lifetime: 120, now: now)
        try CompactJWS(jwt).verify(with: key.publicKey)
        let (header, claims) = try decodeJWT(jwt)
        #expect(header["typ"] == "oauth-authz-req+jwt" && header["kid"] == "k1" && header["alg"]?.stringValue == algorithm.rawValue)
        #expect(claims["iss"] == "app" && claims["client_id"] == "app" && claims["aud"] == "https://as.example")
        #expect(claims["iat"] == .integer(1_799_999_999) && claims["nbf"] == .integer(1_799_999_999) && claims["exp"] == .integer(1_800_000_119))
        #expect(try Base64URL.decode(try #require(claims["jti"]?.stringValue)).count == 16)
        #expect(claims["max_age"] == .integer(300))
        #expect(claims["claims"]?.objectValue?["id_token"]?.objectValue?["acr"]?.objectValue?["essential"] == .bool(true))
        for name in ["response_type", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method"] {
            #expect(claims[name]?.stringValue == Self.parameters.first { $0.name == name }?.value, "\(name)")
        }
        let second = try decodeJWT(try RequestObject.sign(parameters: Self.parameters, clientID: "app", issuer: Self.issuer, key: key, algorithm: algorithm))
            .claims
        #expect(second["jti"] != claims["jti"])
    }

    @Test("request object: a repeated parameter (RFC 8707 resource) becomes a JSON array claim with every value in order")
    func requestObjectRepeatedParameters() throws {
        let key = try JWK.generate(.ec(.p256))
        let parameters =
            Self.parameters + [
                ("resource", "https://api.example/a"), ("resource", "https://api.example/b"),
                ("resource", "https://api.example/c"), ("audience", "single"),
            ]
        let claims = try decodeJWT(
            try RequestObject.sign(
                parameters: parameters, clientID: "app", issuer: Self.issuer, key: key,
                algorithm: .es256)
        ).claims
        #expect(claims["resource"] == .array([.string("https://api.example/a"), .string("https://api.example/b"), .string("https://api.example/c")]))
        #expect(claims["audience"] == .string("single"))
        #expect(claims["max_age"] == .integer(300))
        #expect(claims["claims"]?.objectValue != nil)
        for twice in ["claims", "max_age"] {
            let value = Self.parameters.first { $0.name == twice }?.value ?? ""
            #expect(throws: OIDCError.self) {
                _ = try RequestObject.sign(
                    parameters: Self.parameters + [(twice, value)], clientID: "app", issuer: Self.issuer,
                    key: key, algorithm: .es256)
            }
        }
    }

    @Test("request object refusals: request/request_uri inside, another client_id, claims not an object, lifetime out of range, a public key")
    func requestObjectErrors() throws {
        let key = try JWK.generate(.ec(.p256))
        func sign(_ parameters: [(name: String, value: String)], lifetime: TimeInterval = 60, key: JWK = key) throws {
            _ = try RequestObject.sign(parameters: parameters, clientID: "app", issuer: Self.issuer, key: key, algorithm: .es256, lifetime: lifetime)
        }
        for bad in [[("request", "x")], [("request_uri", "x")], [("client_id", "other")], [("claims", "[1]")]] {
            #expect(throws: OIDCError.self) { try sign(bad) }
        }
        #expect(throws: OIDCError.self) { try sign([], lifetime: 0) }
        #expect(throws: OIDCError.self) { try sign([], lifetime: 3601) }
        #expect(throws: OIDCError.self) { try sign([], key: key.publicKey) }
    }

    @Test("require_pushed_authorization_requests refuses a front-channel request")
    func parRequired() throws {
        var metadata = ProviderMetadata(issuer: Self.issuer)
        #expect(throws: Never.self) { try PushedAuthorization.checkFrontChannelAllowed(by: metadata) }
        metadata.requirePushedAuthorizationRequests = false
        #expect(throws: Never.self) { try PushedAuthorization.checkFrontChannelAllowed(by: metadata) }
        metadata.requirePushedAuthorizationRequests = true
        do {
            try PushedAuthorization.checkFrontChannelAllowed(by: metadata)
            Issue.record("expected pushed_authorization_required")
        } catch let error as OIDCError {
            #expect(error.code == .pushedAuthorizationRequired)
        }
    }

    @Test("request object by value: the URL carries client_id and request (and the outer parameters asked for)")
    func byValue() throws {
        let url = try RequestObject.authorizationURL(
            authorizationEndpoint: URL(string: "https://as.example/authorize?tenant=t1")!, clientID: "app",
            requestObject: "a.b.c", outerParameters: [("response_type", "code"), ("scope", "openid")])
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(items.map(\.name) == ["tenant", "client_id", "request", "response_type", "scope"])
        #expect(throws: OIDCError.self) {
            _ = try RequestObject.authorizationURL(authorizationEndpoint: URL(string: "http://as.example/authorize")!, clientID: "a", requestObject: "x")
        }
    }
}
