import Foundation
import JOSE
import Testing

@testable import OIDC

/// `OIDCClient` against a scripted provider (no network): one call finishes a login with every check.
@Suite("OIDCClient")
struct OIDCClientTests {
    static let redirectURI = URL(string: "https://app.example.com/callback")!
    static let tokenURL = "https://op.example.com/token"

    static func metadata(issParameter: Bool = false, endSession: Bool = true) -> ProviderMetadata {
        var metadata = ProviderMetadata(issuer: F.issuer)
        metadata.authorizationEndpoint = URL(string: "https://op.example.com/authorize")
        metadata.tokenEndpoint = URL(string: tokenURL)
        metadata.userinfoEndpoint = URL(string: "https://op.example.com/userinfo")
        metadata.jwksURI = F.jwksURL
        metadata.revocationEndpoint = URL(string: "https://op.example.com/revoke")
        if endSession { metadata.endSessionEndpoint = URL(string: "https://op.example.com/logout?ui=1") }
        metadata.authorizationResponseIssParameterSupported = issParameter
        return metadata
    }

    /// A client and its scripted transport, with the provider's key published.
    static func client(
        issParameter: Bool = false, endSession: Bool = true,
        configuration: OIDCClient.Configuration? = nil
    ) throws -> (OIDCClient, ScriptedTransport) {
        let transport = ScriptedTransport()
        transport.json(F.jwksURL.absoluteString, F.jwks([try F.publicJWK("rsa2048", kid: "k1")]))
        let clock = TestClock()
        let client = try OIDCClient(
            metadata: metadata(issParameter: issParameter, endSession: endSession),
            authentication: .clientSecretBasic(clientID: F.clientID, secret: "s3cret-s3cret-s3cret-s3cret-s3cret!"),
            transport: transport, configuration: configuration ?? OIDCClient.Configuration(clock: clock.now))
        return (client, transport)
    }

    static func idToken(_ changes: [(String, JSONValue?)] = []) throws -> String {
        try F.sign(F.claims(changes), key: F.privateKey("rsa2048", kid: "k1"), .rs256)
    }

    /// Scripts the token endpoint's answer.
    static func tokens(_ transport: ScriptedTransport, idToken: String?, tokenType: String = "Bearer", refreshToken: String? = "rt-1") {
        var object: JSONObject = ["access_token": "at-1", "token_type": .string(tokenType), "expires_in": 300]
        if let idToken { object["id_token"] = .string(idToken) }
        if let refreshToken { object["refresh_token"] = .string(refreshToken) }
        transport.json(tokenURL, object.jsonString())
    }

    static func callback(_ pending: PendingLogin, base: String = "https://app.example.com/callback", extra: String = "") -> URL {
        URL(string: base + "?code=the-code&state=\(pending.state)" + extra)!
    }

    @Test("finishLogin with the full redirect URL: code exchanged with the verifier, ID Token validated with the nonce")
    func fullURL() async throws {
        let (client, transport) = try Self.client()
        let pending = try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI, scopes: ["openid", "email"]))
        #expect(pending.url.absoluteString.hasPrefix("https://op.example.com/authorize?"))
        Self.tokens(transport, idToken: try Self.idToken([("nonce", .string(try #require(pending.nonce).value))]))
        let login = try await client.finishLogin(pending, callback: .url(Self.callback(pending)))
        #expect(login.idToken.subject == "alice")
        #expect(login.tokens.refreshToken == "rt-1")
        #expect(transport.calls(Self.tokenURL) == 1)
    }

    @Test("behind a TLS-terminating proxy: the query parameters finish the login; the proxy's URL itself does not match")
    func parametersOnly() async throws {
        let (client, transport) = try Self.client()
        let pending = try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI))
        Self.tokens(transport, idToken: try Self.idToken([("nonce", .string(try #require(pending.nonce).value))]))
        let seen = Self.callback(pending, base: "http://localhost:8080/callback")
        await expectOIDCError(.redirectURIMismatch) { try await client.finishLogin(pending, callback: .url(seen)) }
        let login = try await client.finishLogin(pending, callback: .parameters(try #require(seen.query)))
        #expect(login.idToken.subject == "alice")
        let again = try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI))
        Self.tokens(transport, idToken: try Self.idToken([("nonce", .string(try #require(again.nonce).value))]))
        _ = try await client.finishLogin(again, callback: .decodedParameters(["code": "c", "state": again.state]))
    }

    @Test("the pending login survives JSON (another process finishes it) and shows no secret")
    func codable() async throws {
        let (client, transport) = try Self.client()
        var request = LoginRequest(redirectURI: Self.redirectURI)
        request.maxAge = 600
        request.acrValues = ["gold"]
        request.additionalParameters["context"] = "pay"
        var pending = try await client.startLogin(request)
        let stored = try JSONEncoder().encode(pending)
        pending = try JSONDecoder().decode(PendingLogin.self, from: stored)
        #expect(pending.maxAge == 600 && pending.acrValues == ["gold"] && pending.issuer == F.issuer)
        let secrets = [pending.state, try #require(pending.nonce).value, try #require(pending.codeVerifier).value]
        var dumped = ""
        dump(pending, to: &dumped)
        for secret in secrets {
            #expect(!pending.description.contains(secret) && !dumped.contains(secret))
        }
        // max_age was sent: auth_time is required.
        Self.tokens(transport, idToken: try Self.idToken([("nonce", .string(secrets[1]))]))
        await expectOIDCError(.missingAuthTime) { try await client.finishLogin(pending, callback: .url(Self.callback(pending))) }
        Self.tokens(transport, idToken: try Self.idToken([("nonce", .string(secrets[1])), ("auth_time", .integer(Int64(F.start.timeIntervalSince1970) - 10))]))
        _ = try await client.finishLogin(pending, callback: .url(Self.callback(pending)))
    }

    @Test("every check of the pending login: nonce, state, error response, client")
    func checks() async throws {
        let (client, transport) = try Self.client()
        let pending = try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI))
        Self.tokens(transport, idToken: try Self.idToken([("nonce", "another-nonce")]))
        await expectOIDCError(.nonceMismatch) { try await client.finishLogin(pending, callback: .url(Self.callback(pending))) }
        Self.tokens(transport, idToken: try Self.idToken())
        await expectOIDCError(.missingNonce) { try await client.finishLogin(pending, callback: .url(Self.callback(pending))) }
        await expectOIDCError(.stateMismatch) {
            try await client.finishLogin(pending, callback: .parameters("code=c&state=wrong"))
        }
        do {
            _ = try await client.finishLogin(pending, callback: .parameters("error=access_denied&state=\(pending.state)"))
            Issue.record("an error response finished the login")
        } catch let error as OIDCError {
            #expect(error.code == .authorizationError && error.oauthError?.code == .accessDenied)
        }
        Self.tokens(transport, idToken: nil)
        await expectOIDCError(.missingIDToken) { try await client.finishLogin(pending, callback: .url(Self.callback(pending))) }
        let other = try OAuthRequest(clientID: "someone-else", redirectURI: Self.redirectURI)
        await expectOIDCError(.pendingLoginMismatch) { try await client.start(other) }
    }

    /// The provider advertises `authorization_response_iss_parameter_supported`, or (`requireIssuerParameter`)
    /// it does not but the client requires `iss` anyway: the same checks either way.
    @Test(
        "RFC 9207: a response without iss or with another is refused, when advertised or required by the client",
        arguments: [(advertised: true, required: false), (advertised: false, required: true)])
    func issuerParameter(_ setting: (advertised: Bool, required: Bool)) async throws {
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        configuration.requireIssuerParameter = setting.required
        let (client, transport) = try Self.client(issParameter: setting.advertised, configuration: configuration)
        let pending = try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI))
        await expectOIDCError(.responseIssuerMismatch) { try await client.finishLogin(pending, callback: .url(Self.callback(pending))) }
        await expectOIDCError(.responseIssuerMismatch) {
            try await client.finishLogin(pending, callback: .url(Self.callback(pending, extra: "&iss=https%3A%2F%2Fevil.example")))
        }
        // The requirement travels with the pending login (another process finishes it).
        let decoded = try JSONDecoder().decode(PendingLogin.self, from: JSONEncoder().encode(pending))
        await expectOIDCError(.responseIssuerMismatch) { try await client.finishLogin(decoded, callback: .url(Self.callback(decoded))) }
        Self.tokens(transport, idToken: try Self.idToken([("nonce", .string(try #require(pending.nonce).value))]))
        _ = try await client.finishLogin(pending, callback: .url(Self.callback(pending, extra: "&iss=https%3A%2F%2Fop.example.com")))
        // The redirect's issuer code is not the ID Token's.
        #expect(OIDCError.Code.responseIssuerMismatch != OIDCError.Code.issuerMismatch)
    }

    @Test("neither advertised nor required: a redirect without iss is accepted (the metadata is what counts)")
    func issuerParameterNotRequired() async throws {
        let (client, transport) = try Self.client(issParameter: false)
        let pending = try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI))
        Self.tokens(transport, idToken: try Self.idToken([("nonce", .string(try #require(pending.nonce).value))]))
        _ = try await client.finishLogin(pending, callback: .url(Self.callback(pending)))
    }

    @Test("token_type other than Bearer is refused (RFC 6749 §7.1); DPoP is refused even when listed unless a DPoP binding is configured")
    func tokenType() async throws {
        let (client, transport) = try Self.client()
        let pending = try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI))
        let idToken = try Self.idToken([("nonce", .string(try #require(pending.nonce).value))])
        Self.tokens(transport, idToken: idToken, tokenType: "DPoP")
        await expectOIDCError(.unsupportedTokenType) { try await client.finishLogin(pending, callback: .url(Self.callback(pending))) }
        Self.tokens(transport, idToken: idToken, tokenType: "bearer")
        _ = try await client.finishLogin(pending, callback: .url(Self.callback(pending)))
        let (dpop, dpopTransport) = try Self.client(configuration: OIDCClient.Configuration(clock: TestClock().now, acceptedTokenTypes: ["DPoP"]))
        let second = try await dpop.startLogin(LoginRequest(redirectURI: Self.redirectURI))
        Self.tokens(dpopTransport, idToken: try Self.idToken([("nonce", .string(try #require(second.nonce).value))]), tokenType: "DPoP")
        await expectOIDCError(.dpopTokenTypeMismatch) { try await dpop.finishLogin(second, callback: .url(Self.callback(second))) }
    }

    @Test("refresh: the new ID Token is validated and must be the same session (§12.2); missing members carried over")
    func refresh() async throws {
        let (client, transport) = try Self.client()
        let original = TokenResponse(accessToken: "at-0", refreshToken: "rt-0", idToken: try Self.idToken())
        Self.tokens(transport, idToken: try Self.idToken(), refreshToken: nil)
        let fresh = try await client.refresh(original)
        #expect(fresh.accessToken == "at-1" && fresh.refreshToken == "rt-0")
        Self.tokens(transport, idToken: nil)
        #expect(try await client.refresh(original).idToken == original.idToken)
        // Refused answers that keep the refresh token sent (or carry none): the check's own code.
        for kept in ["rt-0", nil] as [String?] {
            Self.tokens(transport, idToken: try Self.idToken([("sub", "mallory")]), refreshToken: kept)
            await expectOIDCError(.refreshSubjectChanged) { try await client.refresh(original) }
            Self.tokens(transport, idToken: F.tamper(try Self.idToken()), refreshToken: kept)
            await expectOIDCError(.invalidSignature) { try await client.refresh(original) }
            Self.tokens(transport, idToken: try Self.idToken([("aud", "other-client")]), refreshToken: kept)
            await expectOIDCError(.audienceMismatch) { try await client.refresh(original) }
            Self.tokens(transport, idToken: try Self.idToken(), tokenType: "MAC", refreshToken: kept)
            await expectOIDCError(.unsupportedTokenType) { try await client.refresh(original) }
        }
        await expectOIDCError(.invalidTokenRequest) { try await client.refresh(TokenResponse(accessToken: "a")) }
    }

    @Test(
        "refresh: an answer refused after the provider rotated the refresh token is refresh_token_spent, naming the check",
        arguments: ["refresh_subject_changed", "invalid_signature", "unsupported_token_type"])
    func refreshSpent(_ check: String) async throws {
        let (client, transport) = try Self.client()
        let original = TokenResponse(accessToken: "at-0", refreshToken: "rt-0", idToken: try Self.idToken())
        switch check {
        case "refresh_subject_changed": Self.tokens(transport, idToken: try Self.idToken([("sub", "mallory")]), refreshToken: "rt-1")
        case "invalid_signature": Self.tokens(transport, idToken: F.tamper(try Self.idToken()), refreshToken: "rt-1")
        default: Self.tokens(transport, idToken: try Self.idToken(), tokenType: "MAC", refreshToken: "rt-1")
        }
        let error = await #expect(throws: OIDCError.self) { try await client.refresh(original) }
        #expect(error?.code == .refreshTokenSpent)
        #expect(error?.reason.contains(check) == true, Comment(rawValue: error?.reason ?? ""))
        #expect(error.map { !$0.reason.contains("rt-1") && !$0.reason.contains("rt-0") } == true, "no token in the error")
    }

    @Test("userInfo checks sub against the ID Token")
    func userInfo() async throws {
        let (client, transport) = try Self.client()
        let tokens = TokenResponse(accessToken: "at-0", idToken: try Self.idToken())
        transport.json("https://op.example.com/userinfo", #"{"sub":"alice","email":"a@example.com"}"#)
        #expect(try await client.userInfo(tokens)["email"]?.stringValue == "a@example.com")
        transport.json("https://op.example.com/userinfo", #"{"sub":"mallory"}"#)
        await expectOIDCError(.userInfoSubjectMismatch) { try await client.userInfo(tokens) }
        await expectOIDCError(.missingIDToken) { try await client.userInfo(TokenResponse(accessToken: "a")) }
    }

    @Test("hybrid code id_token: the front-channel ID Token's c_hash and nonce checked, both ID Tokens the same user")
    func hybrid() async throws {
        let (client, transport) = try Self.client()
        let pending = try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI, responseType: .codeIDToken))
        let nonce = JSONValue.string(try #require(pending.nonce).value)
        let cHash = JSONValue.string(TokenHash.compute("the-code", algorithm: .rs256))
        func callback(_ idToken: String) -> AuthorizationCallback {
            .url(URL(string: "https://app.example.com/callback#code=the-code&state=\(pending.state)&id_token=\(idToken)")!)
        }
        Self.tokens(transport, idToken: try Self.idToken([("nonce", nonce)]))
        _ = try await client.finishLogin(pending, callback: callback(try Self.idToken([("nonce", nonce), ("c_hash", cHash)])))
        await expectOIDCError(.missingCodeHash) {
            try await client.finishLogin(pending, callback: callback(try Self.idToken([("nonce", nonce)])))
        }
        await expectOIDCError(.codeHashMismatch) {
            try await client.finishLogin(pending, callback: callback(try Self.idToken([("nonce", nonce), ("c_hash", "AAAAAAAAAAAAAAAAAAAAAA")])))
        }
        Self.tokens(transport, idToken: try Self.idToken([("nonce", nonce), ("sub", "mallory")]))
        await expectOIDCError(.hybridIDTokenMismatch) {
            try await client.finishLogin(pending, callback: callback(try Self.idToken([("nonce", nonce), ("c_hash", cHash)])))
        }
    }

    @Test("essential acr and azp: what the request asked for is what the ID Token must show")
    func acrAndAzp() async throws {
        let (client, transport) = try Self.client()
        var request = LoginRequest(redirectURI: Self.redirectURI)
        request.claims = ClaimsRequest(idToken: ["acr": .values(["gold"], essential: true)])
        let pending = try await client.startLogin(request)
        let nonce = JSONValue.string(try #require(pending.nonce).value)
        Self.tokens(transport, idToken: try Self.idToken([("nonce", nonce), ("acr", "silver")]))
        await expectOIDCError(.acrNotSatisfied) { try await client.finishLogin(pending, callback: .url(Self.callback(pending))) }
        Self.tokens(transport, idToken: try Self.idToken([("nonce", nonce)]))
        await expectOIDCError(.missingACR) { try await client.finishLogin(pending, callback: .url(Self.callback(pending))) }
        Self.tokens(transport, idToken: try Self.idToken([("nonce", nonce), ("acr", "gold"), ("aud", [.string(F.clientID), "other"])]))
        await expectOIDCError(.missingAuthorizedParty) { try await client.finishLogin(pending, callback: .url(Self.callback(pending))) }
        Self.tokens(
            transport,
            idToken: try Self.idToken([
                ("nonce", nonce), ("acr", "gold"), ("aud", [.string(F.clientID), "other"]),
                ("azp", .string(F.clientID)),
            ]))
        _ = try await client.finishLogin(pending, callback: .url(Self.callback(pending)))
    }

    @Test("metadata that would send secrets in cleartext is refused when the client is made")
    func cleartextEndpoints() throws {
        for field in ["token", "end_session", "revocation"] {
            var metadata = Self.metadata()
            let cleartext = URL(string: "http://127.0.0.1:8080/\(field)")
            switch field {
            case "token": metadata.tokenEndpoint = cleartext
            case "end_session": metadata.endSessionEndpoint = cleartext
            default: metadata.revocationEndpoint = cleartext
            }
            #expect(throws: OIDCError.self, "\(field)") {
                try OIDCClient(metadata: metadata, authentication: .none(clientID: F.clientID), transport: ScriptedTransport())
            }
        }
    }

    @Test("description and dump of the client show no secret")
    func redaction() throws {
        let (client, _) = try Self.client()
        var dumped = ""
        dump(client, to: &dumped)
        for text in [client.description, dumped, "\(client)"] {
            #expect(!text.contains("s3cret"), "\(text)")
            #expect(text.contains(F.clientID))
        }
    }

    @Test("logoutURL: end_session_endpoint with the hint, client id, post-logout URI and state; absent endpoint is typed")
    func logout() throws {
        let (client, _) = try Self.client()
        let url = try client.logoutURL(
            idTokenHint: "h.i.nt", postLogoutRedirectURI: URL(string: "https://app.example.com/bye"),
            state: "s 1")
        #expect(
            url.absoluteString == "https://op.example.com/logout?ui=1&id_token_hint=h.i.nt&client_id=client-123"
                + "&post_logout_redirect_uri=https%3A%2F%2Fapp.example.com%2Fbye&state=s%201")
        let (bare, _) = try Self.client(endSession: false)
        #expect(throws: OIDCError.self) { try bare.logoutURL(idTokenHint: nil, postLogoutRedirectURI: nil, state: nil) }
    }
}

/// Safe defaults of the lower layer. The call shapes that used to skip a check by omission no longer
/// compile (kept here as a record; each line below is a compile error today):
///
///     try await validator.validate(token)                         // expectations required: nonce stated
///     IDTokenExpectations()                                       // nonce: .sent(x) or .noNonceSent
///     try await foreignVerifier.verify(token)                     // audience: .contains(x) or .anyAudience
///     try request.pendingAuthorization(at: endpoint)              // issuer: + issuerParameterSupported:, or
///                                                                 // pendingAuthorizationWithoutIssuerCheck(at:)
///     try JWT.verify(token, key: key)                             // issuer: + audience:, or
///                                                                 // JWT.verifyIgnoringIssuerAndAudience
@Suite("Safe defaults and pinned keys")
struct SafeDefaultTests {
    @Test("JWT.verify with issuer and audience checks both")
    func jwtIdentity() throws {
        let key = try F.privateKey("rsa2048", kid: nil)
        let token = try F.sign(F.claims(), key: key, .rs256)
        let options = JWTValidationPolicy(clock: { F.start })
        _ = try JWT.verify(token, key: key.publicKey, issuer: F.issuer, audience: F.clientID, validation: options)
        #expect(throws: JOSEError.self) { try JWT.verify(token, key: key.publicKey, issuer: "https://evil.example", audience: F.clientID, validation: options) }
        #expect(throws: JOSEError.self) { try JWT.verify(token, key: key.publicKey, issuer: F.issuer, audience: "other", validation: options) }
    }

    @Test("a pinned key without kid (a PEM) validates a token whose header names a kid")
    func pinnedKey() async throws {
        let token = try F.sign(F.claims(), key: F.privateKey("rsa2048", kid: "provider-kid-7"), .rs256)
        let pem = try JWK(publicKeyFromPEM: try F.text("rsa2048.pub.pem"))
        #expect(pem.keyID == nil)
        let config = F.config()
        _ = try await IDTokenValidator(configuration: config, keys: .keySet(JWKSet(keys: [pem]))).validate(
            token, expecting: IDTokenExpectations(nonce: .noNonceSent))
        _ = try await IDTokenValidator(configuration: config, keys: .keySet(JWKSet(keys: [pem]))).validate(
            token, expecting: IDTokenExpectations(nonce: .noNonceSent))
        // A set with kids and no match names the kid it looked for.
        let other = try JWKSet(json: F.jwks([try F.publicJWK("rsa2048", kid: "a"), try F.publicJWK("p256", kid: "b")]))
        do {
            _ = try await IDTokenValidator(configuration: config, keys: .keySet(other)).validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
            Issue.record("validated without a matching kid")
        } catch let error as OIDCError {
            #expect(error.code == .signingKeyNotFound && error.reason.contains("provider-kid-7"))
        }
    }

    @Test("ExpectedNonce from a request: .sent when it had one, .noNonceSent otherwise")
    func expectedNonce() throws {
        #expect(ExpectedNonce(try Nonce("n-123456789012345678901")) == .sent("n-123456789012345678901"))
        #expect(ExpectedNonce(nil) == .noNonceSent)
    }
}
