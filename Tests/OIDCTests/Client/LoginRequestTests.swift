import Foundation
import JOSE
import Testing

@testable import OIDC

/// `LoginRequest` and the one `startLogin`: the safe defaults, what each value sends, and the rule that a login
/// the provider or the FAPI 2.0 profile requires to be pushed is pushed unless `.never` is said by name.
@Suite("LoginRequest and startLogin")
struct LoginRequestTests {
    typealias F = IDTokenFixtures
    static let redirectURI = URL(string: "https://app.example.com/callback")!

    static func query(_ url: URL) -> [String: String] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    @Test("the defaults: code, openid, the response type's own mode, pushed only when required, no request object")
    func defaults() async throws {
        let request = LoginRequest(redirectURI: Self.redirectURI)
        #expect(request.scopes == ["openid"])
        #expect(request.responseType == .code)
        #expect(request.responseMode == nil)
        #expect(request.push == .whenRequired)
        #expect(request.requestObject == nil)
        #expect(request.prompt.isEmpty && request.maxAge == nil && request.acrValues.isEmpty && request.loginHint == nil)
        #expect(request.idTokenHint == nil && request.uiLocales.isEmpty && request.claimsLocales.isEmpty && request.display == nil)
        #expect(request.claims == nil && request.resources.isEmpty && request.authorizationDetails.isEmpty)
        #expect(request.additionalParameters.isEmpty && request.parameterLengthLimits.isEmpty)
        // Started: every parameter on the front channel, fresh state and nonce, S256 PKCE, no response_mode.
        let (client, transport) = try OIDCClientTests.client()
        let pending = try await client.startLogin(request)
        let query = Self.query(pending.url)
        #expect(query["response_type"] == "code" && query["scope"] == "openid" && query["client_id"] == F.clientID)
        #expect(query["redirect_uri"] == Self.redirectURI.absoluteString)
        #expect(query["state"] == pending.state && pending.state.count >= 43)
        #expect(query["nonce"] == pending.nonce?.value && (pending.nonce?.value.count ?? 0) >= 43)
        #expect(query["code_challenge_method"] == "S256" && query["code_challenge"] == pending.request.pkce?.challenge)
        #expect(query["response_mode"] == nil && query["request_uri"] == nil && query["request"] == nil)
        #expect(transport.totalCalls == 0)
        // Two logins never share a secret.
        let second = try await client.startLogin(request)
        #expect(second.state != pending.state && second.nonce != pending.nonce && second.codeVerifier != pending.codeVerifier)
    }

    @Test("each value of the login request is sent, and checked")
    func values() async throws {
        var request = LoginRequest(redirectURI: Self.redirectURI, scopes: ["email"], responseMode: .formPost)
        request.prompt = [.login]
        request.maxAge = 600
        request.acrValues = ["gold"]
        request.loginHint = "alice"
        request.uiLocales = ["de", "en"]
        request.claims = ClaimsRequest(idToken: ["acr": .essential])
        request.resources = [URL(string: "https://api.example.com/")!]
        request.authorizationDetails = [try AuthorizationDetail(type: "payment_initiation")]
        request.additionalParameters["context"] = "pay"
        let (client, _) = try OIDCClientTests.client()
        let query = Self.query(try await client.startLogin(request).url)
        #expect(query["scope"] == "openid email")  // openid put first
        #expect(query["response_mode"] == "form_post" && query["prompt"] == "login" && query["max_age"] == "600")
        #expect(query["acr_values"] == "gold" && query["login_hint"] == "alice" && query["ui_locales"] == "de en")
        #expect(query["claims"] == #"{"id_token":{"acr":{"essential":true}}}"#)
        #expect(query["resource"] == "https://api.example.com/" && query["context"] == "pay")
        #expect(query["authorization_details"] == #"[{"type":"payment_initiation"}]"#)
        // The request's own rules still hold: prompt=none alone, no standard name as an extra parameter, length caps.
        var loud = LoginRequest(redirectURI: Self.redirectURI)
        loud.prompt = [.none, .login]
        await expectOIDCError(.invalidRequestParameter) { try await client.startLogin(loud) }
        var colliding = LoginRequest(redirectURI: Self.redirectURI)
        colliding.additionalParameters["prompt"] = "login"
        await expectOIDCError(.parameterCollision) { try await client.startLogin(colliding) }
        var capped = LoginRequest(redirectURI: Self.redirectURI)
        capped.parameterLengthLimits["context"] = 3
        capped.additionalParameters["context"] = "four"
        await expectOIDCError(.parameterTooLong) { try await client.startLogin(capped) }
    }

    @Test("FAPI 2.0: a login request that leaves push out is pushed; only push: .never, said by name, is refused")
    func fapiPushCannotBeLeftOut() async throws {
        let transport = try OIDCClientFAPITests.transport { nil }
        let client = try OIDCClient(
            metadata: OIDCClientFAPITests.metadata(), authentication: try OIDCClientFAPITests.authentication(),
            transport: transport, configuration: try OIDCClientFAPITests.configuration())
        for request in [
            LoginRequest(redirectURI: Self.redirectURI), LoginRequest(redirectURI: Self.redirectURI, push: .whenRequired),
            LoginRequest(redirectURI: Self.redirectURI, push: .always),
        ] {
            let before = transport.requests.count
            let pending = try await client.startLogin(request)
            #expect(Self.query(pending.url) == ["client_id": F.clientID, "request_uri": "urn:ietf:params:oauth:request_uri:abc"])
            #expect(transport.requests.count == before + 1 && transport.requests.last?.url.path == "/par")
        }
        let before = transport.requests.count
        await expectOIDCError(.pushedAuthorizationRequired) {
            try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI, push: .never))
        }
        #expect(transport.requests.count == before)
    }

    @Test("require_pushed_authorization_requests: pushed by default; push: .never is refused before anything is sent")
    func providerRequiresPush() async throws {
        let transport = ScriptedTransport()
        transport.json("https://op.example.com/par", #"{"request_uri":"urn:ietf:params:oauth:request_uri:xyz","expires_in":60}"#, status: 201)
        var metadata = OIDCClientTests.metadata()
        metadata.pushedAuthorizationRequestEndpoint = URL(string: "https://op.example.com/par")
        metadata.requirePushedAuthorizationRequests = true
        let client = try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: F.clientID, secret: "s3cret-s3cret-s3cret"),
            transport: transport, configuration: OIDCClient.Configuration(clock: TestClock().now))
        let pending = try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI))
        #expect(Self.query(pending.url) == ["client_id": F.clientID, "request_uri": "urn:ietf:params:oauth:request_uri:xyz"])
        #expect(transport.calls("https://op.example.com/par") == 1)
        await expectOIDCError(.pushedAuthorizationRequired) {
            try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI, push: .never))
        }
        #expect(transport.calls("https://op.example.com/par") == 1)
        // Without the requirement, the default stays on the front channel and .always pushes.
        metadata.requirePushedAuthorizationRequests = false
        let optional = try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: F.clientID, secret: "s3cret-s3cret-s3cret"),
            transport: transport, configuration: OIDCClient.Configuration(clock: TestClock().now))
        #expect(Self.query(try await optional.startLogin(LoginRequest(redirectURI: Self.redirectURI)).url)["state"] != nil)
        #expect(transport.calls("https://op.example.com/par") == 1)
        _ = try await optional.startLogin(LoginRequest(redirectURI: Self.redirectURI, push: .always))
        #expect(transport.calls("https://op.example.com/par") == 2)
    }

    @Test("a login an app started: the code redeemed with the app's verifier, the ID Token held to the app's nonce")
    func codeCheckedByApp() async throws {
        let (client, transport) = try OIDCClientTests.client()
        let verifier = String(repeating: "v", count: 43)
        let pending = try client.pendingLogin(startedByApp: Self.redirectURI, codeVerifier: verifier, nonce: "app-nonce")
        OIDCClientTests.tokens(transport, idToken: try OIDCClientTests.idToken([("nonce", "app-nonce")]))
        let login = try await client.finishLogin(pending, callback: .codeCheckedByApp("the-code"))
        #expect(login.idToken.subject == "alice" && login.authorizationResponse.code == "the-code")
        #expect(pending.codeVerifier?.value == verifier)
        OIDCClientTests.tokens(transport, idToken: try OIDCClientTests.idToken([("nonce", "another-nonce")]))
        await expectOIDCError(.nonceMismatch) { try await client.finishLogin(pending, callback: .codeCheckedByApp("the-code")) }
        await expectOIDCError(.invalidCodeVerifier) { try client.pendingLogin(startedByApp: Self.redirectURI, codeVerifier: "short", nonce: nil) }
        // The code alone is never parsed as a redirect.
        #expect(throws: OIDCError.self) { try pending.authorization.parse(.codeCheckedByApp("the-code")) }
    }
}
