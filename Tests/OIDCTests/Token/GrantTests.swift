import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("Generic grants, client credentials, token exchange, JWT bearer, resource indicators")
struct GrantTests {
    static let endpoint = URL(string: "https://idp.example/token")!
    static let fixedNow = Date(timeIntervalSince1970: 1_800_000_000)

    func client(
        _ transport: CannedTransport, _ authentication: ClientAuthentication = .clientSecretBasic(clientID: "svc", secret: "s"),
        clock: @escaping @Sendable () -> Date = { GrantTests.fixedNow }
    ) throws -> TokenClient {
        try TokenClient(tokenEndpoint: Self.endpoint, authentication: authentication, transport: transport, clock: clock)
    }

    static func tokenBody(_ token: String = "AT", expiresIn: Int = 3600, extra: String = "") -> String {
        #"{"access_token":"\#(token)","token_type":"Bearer","expires_in":\#(expiresIn)\#(extra)}"#
    }

    @Test("client credentials: grant type, scope, audience, one resource parameter per URI, client authentication")
    func clientCredentials() async throws {
        let transport = CannedTransport(status: 200, body: Self.tokenBody())
        let tokens = try await client(transport).clientCredentials(
            scope: "read write", resources: [URL(string: "https://api.example/a")!, URL(string: "https://api.example/b")!], audience: "api")
        let request = try #require(transport.requests.first)
        #expect(
            request.bodyText
                == "grant_type=client_credentials&scope=read%20write&audience=api&resource=https%3A%2F%2Fapi.example%2Fa&resource=https%3A%2F%2Fapi.example%2Fb"
        )
        #expect(request.headers["Authorization"]?.hasPrefix("Basic ") == true)
        #expect(tokens.accessToken == "AT")
    }

    @Test("a resource indicator with a fragment or without a scheme is refused before sending")
    func badResource() async throws {
        let transport = CannedTransport(status: 200, body: Self.tokenBody())
        for bad in ["https://api.example/a#frag", "relative/path"] {
            await #expect(throws: OIDCError.self) {
                _ = try await client(transport).clientCredentials(resources: [URL(string: bad)!])
            }
        }
        #expect(transport.requests.isEmpty)
    }

    @Test("the generic grant refuses parameters that would replace the grant type or the client authentication")
    func reservedParameters() async throws {
        let transport = CannedTransport(status: 200, body: Self.tokenBody())
        for name in ["grant_type", "client_id", "client_secret", "client_assertion", "client_assertion_type"] {
            do {
                _ = try await client(transport).requestToken(grantType: "urn:example:grant", parameters: [(name, "x")])
                Issue.record("\(name) was accepted")
            } catch let error as OIDCError {
                #expect(error.code == .invalidTokenRequest)
            }
        }
        #expect(transport.requests.isEmpty)
        _ = try await client(transport).requestToken(grantType: "urn:example:grant", parameters: [("subject", "alice"), ("scope", "a")])
        #expect(transport.requests.first?.bodyText == "grant_type=urn%3Aexample%3Agrant&subject=alice&scope=a")
    }

    @Test("code exchange and refresh carry resource indicators (RFC 8707 §2.2)")
    func codeAndRefreshResources() async throws {
        let transport = CannedTransport(status: 200, body: Self.tokenBody())
        let resource = URL(string: "https://api.example/")!
        _ = try await client(transport).exchangeCode("c", redirectURI: URL(string: "https://app.example/cb")!, codeVerifier: nil, resources: [resource])
        _ = try await client(transport).refresh("R", resources: [resource])
        #expect(
            transport.requests.map(\.bodyText) == [
                "grant_type=authorization_code&code=c&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&resource=https%3A%2F%2Fapi.example%2F",
                "grant_type=refresh_token&refresh_token=R&resource=https%3A%2F%2Fapi.example%2F",
            ])
    }

    @Test("token exchange: every RFC 8693 parameter, the issued_token_type, and a description without tokens")
    func tokenExchange() async throws {
        let transport = CannedTransport(
            status: 200, body: Self.tokenBody("NEW", extra: #","issued_token_type":"urn:ietf:params:oauth:token-type:access_token""#))
        let request = TokenExchangeRequest(
            subjectToken: "SUBJ", subjectTokenType: .accessToken, actorToken: "ACT", actorTokenType: .jwt,
            resources: [URL(string: "https://backend.example/")!], audiences: ["backend"], scope: "read",
            requestedTokenType: .accessToken)
        let answer = try await client(transport).exchangeToken(request)
        #expect(answer.issuedTokenType == .accessToken)
        #expect(answer.tokens.accessToken == "NEW")
        let body = try #require(transport.requests.first).bodyText
        #expect(
            body
                == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token=SUBJ&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token&actor_token=ACT&actor_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Ajwt&audience=backend&scope=read&requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token&resource=https%3A%2F%2Fbackend.example%2F"
        )
        for text in [String(describing: request), String(describing: answer)] {
            #expect(!text.contains("SUBJ") && !text.contains("ACT") && !text.contains("NEW"))
        }
        var dumped = ""
        dump(request, to: &dumped)
        #expect(!dumped.contains("SUBJ"))
    }

    @Test("token exchange: an answer without issued_token_type is a typed error; an actor token needs its type")
    func tokenExchangeErrors() async throws {
        let transport = CannedTransport(status: 200, body: Self.tokenBody())
        do {
            _ = try await client(transport).exchangeToken(TokenExchangeRequest(subjectToken: "S", subjectTokenType: .idToken))
            Issue.record("an answer without issued_token_type was accepted")
        } catch let error as OIDCError {
            #expect(error.code == .invalidTokenExchangeResponse)
        }
        let before = transport.requests.count
        do {
            _ = try await client(transport).exchangeToken(TokenExchangeRequest(subjectToken: "S", subjectTokenType: .idToken, actorToken: "A"))
            Issue.record("an actor token without a type was sent")
        } catch let error as OIDCError {
            #expect(error.code == .invalidTokenRequest)
        }
        #expect(transport.requests.count == before)
    }

    @Test("JWT bearer grant: the assertion is signed with the key and carries iss, sub, aud, iat, exp, jti")
    func jwtBearer() async throws {
        let key = try JWK(json: try String(contentsOf: Self.keysDirectory.appendingPathComponent("p256.jwk"), encoding: .utf8))
        let transport = CannedTransport(status: 200, body: Self.tokenBody())
        let assertion = JWTBearerAssertion(
            issuer: "svc", subject: "alice", audience: "https://idp.example", key: key, algorithm: .es256,
            lifetime: 120, additionalClaims: ["tenant": "t1"])
        _ = try await client(transport).jwtBearerGrant(assertion, scope: "read")
        let pairs = try FormURLEncoding.parse(try #require(transport.requests.first).bodyText)
        #expect(pairs.first { $0.name == "grant_type" }?.value == "urn:ietf:params:oauth:grant-type:jwt-bearer")
        #expect(pairs.first { $0.name == "scope" }?.value == "read")
        let jwt = try JWT.verify(
            try #require(pairs.first { $0.name == "assertion" }?.value), key: key,
            issuer: "svc", audience: "https://idp.example", validation: JWTValidationPolicy(clock: { Self.fixedNow }))
        #expect(try jwt.claims.subject == "alice")
        #expect(try jwt.claims.issuedAt == Self.fixedNow.addingTimeInterval(-1))  // one second behind the clock (AssertionTimes)
        #expect(try jwt.claims.expiresAt == Self.fixedNow.addingTimeInterval(119))
        #expect(try jwt.claims.string("tenant") == "t1")
        #expect(try jwt.claims.jwtID?.isEmpty == false)
        #expect(!String(describing: assertion).contains("\"d\""))
        // A claim that would replace a standard one is refused.
        let bad = JWTBearerAssertion(issuer: "svc", subject: "alice", audience: "x", key: key, algorithm: .es256, additionalClaims: ["sub": "mallory"])
        #expect(throws: OIDCError.self) { _ = try bad.sign(now: Self.fixedNow) }
    }

    @Test(
        "JWT bearer assertion and request object at an absurd clock: a typed error, never an Int64 overflow trap",
        arguments: [9_223_372_036_854_774_784.0, -9_223_372_036_854_775_808.0, Double.infinity, -Double.infinity, Double.nan, 1e300])
    func absurdClock(_ seconds: Double) throws {
        let key = try JWK(json: try String(contentsOf: Self.keysDirectory.appendingPathComponent("p256.jwk"), encoding: .utf8))
        // 2^63 - 1024 (the largest Double below 2^63): iat fits in Int64, iat + 3600 does not.
        let now = Date(timeIntervalSince1970: seconds)
        let assertion = JWTBearerAssertion(
            issuer: "svc", subject: "alice", audience: "https://idp.example", key: key, algorithm: .es256,
            lifetime: 3600)
        #expect { _ = try assertion.sign(now: now) } throws: { ($0 as? OIDCError)?.code == .invalidTokenRequest }
        #expect {
            _ = try RequestObject.sign(
                parameters: [("response_type", "code")], clientID: "app", issuer: "https://idp.example", key: key,
                algorithm: .es256, lifetime: 3600, now: now)
        } throws: { ($0 as? OIDCError)?.code == .requestObjectFailed }
    }

    static let keysDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Keys")
}

@Suite("ClientCredentialsTokenSource")
struct ClientCredentialsTokenSourceTests {
    final class Clock: Sendable {
        let now = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        func advance(_ seconds: TimeInterval) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }
        var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
    }

    static func counting(expiresIn: Int = 600, delay: TimeInterval = 0) -> CannedTransport {
        let issued = Locked(0)
        return CannedTransport { _ in
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            let n = issued.withLock {
                $0 += 1; return $0
            }
            return TransportResponse(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Array(GrantTests.tokenBody("AT\(n)", expiresIn: expiresIn).utf8))
        }
    }

    @Test("100 concurrent callers share one token request")
    func singleFlight() async throws {
        let transport = Self.counting(delay: 0.05)
        let source = ClientCredentialsTokenSource(
            client: try TokenClient(
                tokenEndpoint: GrantTests.endpoint,
                authentication: .clientSecretPost(clientID: "svc", secret: "s"), transport: transport),
            scope: "read")
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await source.accessToken() } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens.count == 100)
        #expect(Set(tokens) == ["AT1"])
        #expect(transport.requests.count == 1)
        #expect(await source.requestCount == 1)
    }

    @Test("the cached token is reused until it expires within the margin, then replaced")
    func refreshMargin() async throws {
        let clock = Clock()
        let transport = Self.counting(expiresIn: 300)
        let client = try TokenClient(
            tokenEndpoint: GrantTests.endpoint, authentication: .clientSecretBasic(clientID: "svc", secret: "s"),
            transport: transport, clock: clock.read)
        let source = ClientCredentialsTokenSource(client: client, refreshMargin: 60)
        #expect(try await source.accessToken() == "AT1")
        clock.advance(239)
        #expect(try await source.accessToken() == "AT1")
        clock.advance(1)  // 60 s left: within the margin
        #expect(try await source.accessToken() == "AT2")
        #expect(transport.requests.count == 2)
    }

    @Test("a token living less than twice the margin is still reused, for half its lifetime (not one request per call)")
    func shortLivedToken() async throws {
        let clock = Clock()
        let transport = Self.counting(expiresIn: 30)
        let client = try TokenClient(
            tokenEndpoint: GrantTests.endpoint, authentication: .clientSecretBasic(clientID: "svc", secret: "s"),
            transport: transport, clock: clock.read)
        let source = ClientCredentialsTokenSource(client: client, refreshMargin: 60)
        #expect(try await source.accessToken() == "AT1")
        #expect(try await source.accessToken() == "AT1")
        clock.advance(14)
        #expect(try await source.accessToken() == "AT1")
        clock.advance(1)  // 15 s left: half the lifetime
        #expect(try await source.accessToken() == "AT2")
        #expect(transport.requests.count == 2)
    }

    @Test("invalidate drops only the current token; a failed request is not cached")
    func invalidateAndFailure() async throws {
        let transport = Self.counting()
        let source = ClientCredentialsTokenSource(
            client: try TokenClient(
                tokenEndpoint: GrantTests.endpoint,
                authentication: .none(clientID: "svc"), transport: transport))
        #expect(try await source.accessToken() == "AT1")
        await source.invalidate("some-older-token")
        #expect(try await source.accessToken() == "AT1")
        await source.invalidate("AT1")
        #expect(try await source.accessToken() == "AT2")

        let failing = CannedTransport(status: 401, body: #"{"error":"invalid_client"}"#)
        let broken = ClientCredentialsTokenSource(
            client: try TokenClient(
                tokenEndpoint: GrantTests.endpoint,
                authentication: .none(clientID: "svc"), transport: failing))
        for _ in 0..<2 {
            await #expect(throws: OIDCError.self) { _ = try await broken.accessToken() }
        }
        #expect(failing.requests.count == 2)
    }
}
