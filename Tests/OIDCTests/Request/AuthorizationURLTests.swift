import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("authorization URL")
struct AuthorizationURLTests {
    @Test("the code flow URL, exactly")
    func exactCodeURL() throws {
        let url = try Fixture.request(scopes: ["openid", "profile"]).authorizationURL(at: Fixture.endpoint)
        #expect(
            url.absoluteString == "https://idp.example.com/oauth2/authorize?response_type=code&client_id=client-1"
                + "&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback&scope=openid%20profile"
                + "&state=\(Fixture.stateText)&nonce=\(Fixture.nonceText)&code_challenge=\(Fixture.challenge)"
                + "&code_challenge_method=S256")
    }

    @Test("every response type", arguments: ResponseType.allCases)
    func responseTypes(_ type: ResponseType) throws {
        let url = try Fixture.request(type, scopes: ["profile"]).authorizationURL(at: Fixture.endpoint)
        #expect(try Fixture.query(url, "response_type") == type.rawValue)
        #expect(try Fixture.query(url, "scope") == "openid profile")  // a nonce is present: openid is implied
        #expect(try Fixture.query(url, "nonce") == Fixture.nonceText)
        #expect(try Fixture.query(url, "code_challenge") == (type.includesCode ? Fixture.challenge : nil))
        #expect(try Fixture.query(url, "response_mode") == nil)
        #expect(ResponseType(rawValue: type.words.reversed().joined(separator: " ")) == type)
    }

    @Test("response types with an ID Token need a nonce", arguments: ResponseType.allCases)
    func nonceRequired(_ type: ResponseType) throws {
        var request = Fixture.request(type)
        request.nonce = nil
        let code = errorCode { _ = try request.authorizationURL(at: Fixture.endpoint) }
        #expect(code == (type.includesIDToken ? .nonceRequired : nil))
    }

    @Test("openid is added only for OpenID requests")
    func openidScope() throws {
        var request = Fixture.request(.code, scopes: ["api.read"])
        request.nonce = nil
        #expect(try Fixture.query(request.authorizationURL(at: Fixture.endpoint), "scope") == "api.read")
        request.maxAge = 0
        #expect(try Fixture.query(request.authorizationURL(at: Fixture.endpoint), "scope") == "openid api.read")
        request.maxAge = nil
        request.scopes = ["api.read", "api.read"]
        #expect(try Fixture.query(request.authorizationURL(at: Fixture.endpoint), "scope") == "api.read")
    }

    struct Parameter: Sendable, CustomTestStringConvertible {
        let name: String
        let expected: String
        let set: @Sendable (inout OAuthRequest) -> Void
        var testDescription: String { "\(name)=\(expected)" }
    }

    static let parameters: [Parameter] = [
        Parameter(name: "response_mode", expected: "form_post") { $0.responseMode = .formPost },
        Parameter(name: "response_mode", expected: "fragment") { $0.responseMode = .fragment },
        Parameter(name: "response_mode", expected: "query") { $0.responseMode = .query },
        Parameter(name: "prompt", expected: "none") { $0.prompt = [.none] },
        Parameter(name: "prompt", expected: "login consent select_account") { $0.prompt = [.login, .consent, .selectAccount] },
        Parameter(name: "prompt", expected: "create") { $0.prompt = [Prompt(rawValue: "create")] },
        Parameter(name: "max_age", expected: "0") { $0.maxAge = 0 },
        Parameter(name: "max_age", expected: "3600") { $0.maxAge = 3600 },
        Parameter(name: "acr_values", expected: "urn:mace:incommon:iap:silver phr") { $0.acrValues = ["urn:mace:incommon:iap:silver", "phr"] },
        Parameter(name: "login_hint", expected: "alice+tag@example.com") { $0.loginHint = "alice+tag@example.com" },
        Parameter(name: "id_token_hint", expected: "eyJ.eyJ.sig") { $0.idTokenHint = "eyJ.eyJ.sig" },
        Parameter(name: "ui_locales", expected: "fr-CA fr en") { $0.uiLocales = ["fr-CA", "fr", "en"] },
        Parameter(name: "claims_locales", expected: "de") { $0.claimsLocales = ["de"] },
        Parameter(name: "display", expected: "popup") { $0.display = .popup },
        Parameter(name: "display", expected: "touch") { $0.display = .touch },
        Parameter(name: "claims", expected: #"{"userinfo":{"email":null}}"#) { $0.claims = ClaimsRequest(userinfo: ["email": .voluntary]) },
        Parameter(name: "correlation_id", expected: "3f0c-11ee") { $0.additionalParameters["correlation_id"] = "3f0c-11ee" },
        Parameter(name: "context", expected: "Pay 10 € to A&B = ok? #1 + \"2\" {x}") {
            $0.additionalParameters["context"] = "Pay 10 € to A&B = ok? #1 + \"2\" {x}"
        },
        Parameter(name: "scope", expected: "openid email") { $0.scopes = ["email"] },
        Parameter(name: "client_id", expected: "id with space+plus") { $0.clientID = "id with space+plus" },
        Parameter(name: "redirect_uri", expected: "com.example.app:/oauth2redirect?x=1") {
            $0.redirectURI = URL(string: "com.example.app:/oauth2redirect?x=1")!
        },
    ]

    @Test("every parameter, decoded back exactly", arguments: parameters)
    func parameter(_ p: Parameter) throws {
        var request = Fixture.request()
        p.set(&request)
        let url = try request.authorizationURL(at: Fixture.endpoint)
        #expect(try Fixture.query(url, p.name) == p.expected)
        // Strict encoding: nothing outside the unreserved set appears raw in the query.
        let query = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
        for pair in query.split(separator: "&") {
            #expect(pair.split(separator: "=").count == 2)
            #expect(pair.utf8.allSatisfy { FormURLEncoding.isUnreserved($0) || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "=") })
        }
    }

    struct Base: Sendable, CustomTestStringConvertible {
        let base: String
        let prefix: String
        var testDescription: String { base }
    }

    @Test(
        "existing query items and paths on the base URL are kept verbatim",
        arguments: [
            Base(base: "https://idp.example.com/authorize", prefix: "https://idp.example.com/authorize?response_type=code&"),
            Base(base: "https://idp.example.com/authorize?", prefix: "https://idp.example.com/authorize?response_type=code&"),
            Base(
                base: "https://idp.example.com/t/tenant%201/authorize?p=B2C_1_signin&x=a+b%20c",
                prefix: "https://idp.example.com/t/tenant%201/authorize?p=B2C_1_signin&x=a+b%20c&response_type=code&"),
            Base(base: "https://links.example.com/app/login?flow=1&", prefix: "https://links.example.com/app/login?flow=1&response_type=code&"),
            Base(base: "http://127.0.0.1:9400/o/authorize/", prefix: "http://127.0.0.1:9400/o/authorize/?response_type=code&"),
            Base(base: "http://localhost/authorize", prefix: "http://localhost/authorize?response_type=code&"),
            Base(base: "http://[::1]:8080/authorize", prefix: "http://[::1]:8080/authorize?response_type=code&"),
        ])
    func existingQuery(_ b: Base) throws {
        let url = try Fixture.request().authorizationURL(at: URL(string: b.base)!)
        #expect(url.absoluteString.hasPrefix(b.prefix))
        #expect(try Fixture.query(url, "state") == Fixture.stateText)
    }

    @Test(
        "unusable base URLs are typed errors",
        arguments: [
            "http://idp.example.com/authorize", "http://127.evil.example/authorize", "ftp://idp.example.com/a",
            "https://idp.example.com/authorize#frag", "https://idp.example.com/authorize#", "/relative/authorize",
            "com.example.app:/authorize",
        ])
    func badBase(_ base: String) throws {
        let url = try #require(URL(string: base))
        #expect(errorCode { _ = try Fixture.request().authorizationURL(at: url) } == .invalidAuthorizationEndpoint)
    }

    @Test(
        "parameters must not collide",
        arguments: [
            "https://idp.example.com/a?client_id=other", "https://idp.example.com/a?state=x", "https://idp.example.com/a?x=1&scope=a",
            "https://idp.example.com/a?prompt=login", "https://idp.example.com/a?claims=%7B%7D",
        ])
    func baseCollision(_ base: String) throws {
        #expect(errorCode { _ = try Fixture.request().authorizationURL(at: URL(string: base)!) } == .parameterCollision)
    }

    @Test("additional parameters cannot override standard ones", arguments: OAuthRequest.reservedParameterNames.sorted())
    func additionalCollision(_ name: String) throws {
        var request = Fixture.request()
        request.additionalParameters[name] = "x"
        #expect(errorCode { _ = try request.authorizationURL(at: Fixture.endpoint) } == .parameterCollision)
    }

    @Test("a stated cap on context fails before any URL is built", arguments: [(279, true), (280, true), (281, false)])
    func contextCap(_ length: Int, _ accepted: Bool) throws {
        var request = Fixture.request()
        request.parameterLengthLimits["context"] = 280
        request.additionalParameters["context"] = String(repeating: "é", count: length)
        let error = oidcError { _ = try request.authorizationURL(at: Fixture.endpoint) }
        if accepted {
            #expect(error == nil)
        } else {
            #expect(error?.code == .parameterTooLong)
            #expect(error?.reason == "parameter 'context' has 281 characters; the limit is 280")
        }
    }

    @Test("caps apply to standard parameters too")
    func standardCap() {
        var request = Fixture.request()
        request.loginHint = "a-very-long-login-hint@example.com"
        request.parameterLengthLimits["login_hint"] = 10
        #expect(errorCode { _ = try request.authorizationURL(at: Fixture.endpoint) } == .parameterTooLong)
        request.parameterLengthLimits["login_hint"] = -1
        #expect(errorCode { _ = try request.authorizationURL(at: Fixture.endpoint) } == .invalidRequestParameter)
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        let what: String
        let code: OIDCError.Code
        let set: @Sendable (inout OAuthRequest) -> Void
        var testDescription: String { what }
    }

    static let invalid: [Invalid] = [
        Invalid(what: "prompt none with login", code: .invalidRequestParameter) { $0.prompt = [.none, .login] },
        Invalid(what: "prompt consent with none", code: .invalidRequestParameter) { $0.prompt = [.consent, .none] },
        Invalid(what: "prompt twice", code: .invalidRequestParameter) { $0.prompt = [.login, .login] },
        Invalid(what: "prompt with a space", code: .invalidRequestParameter) { $0.prompt = [Prompt(rawValue: "a b")] },
        Invalid(what: "negative max_age", code: .invalidRequestParameter) { $0.maxAge = -1 },
        Invalid(what: "empty client_id", code: .invalidRequestParameter) { $0.clientID = "" },
        Invalid(what: "client_id with a newline", code: .invalidRequestParameter) { $0.clientID = "a\nb" },
        Invalid(what: "scope with a space", code: .invalidRequestParameter) { $0.scopes = ["openid profile"] },
        Invalid(what: "scope with a quote", code: .invalidRequestParameter) { $0.scopes = ["a\"b"] },
        Invalid(what: "empty scope", code: .invalidRequestParameter) { $0.scopes = [""] },
        Invalid(what: "empty acr value", code: .invalidRequestParameter) { $0.acrValues = [""] },
        Invalid(what: "ui locale with a space", code: .invalidRequestParameter) { $0.uiLocales = ["fr CA"] },
        Invalid(what: "empty login_hint", code: .invalidRequestParameter) { $0.loginHint = "" },
        Invalid(what: "empty id_token_hint", code: .invalidRequestParameter) { $0.idTokenHint = "" },
        Invalid(what: "empty extra name", code: .invalidRequestParameter) { $0.additionalParameters[""] = "x" },
        Invalid(what: "PKCE without code", code: .invalidRequestParameter) { $0.responseType = .idToken },
        Invalid(what: "query mode for a token", code: .invalidRequestParameter) {
            $0.responseType = .codeIDToken
            $0.responseMode = .query
        },
        Invalid(what: "redirect URI with a fragment", code: .invalidRedirectURI) { $0.redirectURI = URL(string: "https://app.example.com/cb#x")! },
        Invalid(what: "relative redirect URI", code: .invalidRedirectURI) { $0.redirectURI = URL(string: "/cb")! },
        Invalid(what: "https redirect URI without host", code: .invalidRedirectURI) { $0.redirectURI = URL(string: "https:/cb")! },
    ]

    @Test("invalid requests are typed errors", arguments: invalid)
    func invalidRequest(_ c: Invalid) {
        var request = Fixture.request()
        c.set(&request)
        #expect(errorCode { _ = try request.authorizationURL(at: Fixture.endpoint) } == c.code)
    }

    @Test("a fresh request has fresh secrets and S256 PKCE")
    func fresh() throws {
        let a = try OAuthRequest(clientID: "c", redirectURI: Fixture.redirectURI)
        let b = try OAuthRequest(clientID: "c", redirectURI: Fixture.redirectURI)
        #expect(a.state.value != b.state.value)
        #expect(a.nonce?.value != b.nonce?.value)
        #expect(a.pkce?.method == .s256)
        #expect(a.pkce?.verifier.value != b.pkce?.verifier.value)
        #expect(try OAuthRequest(clientID: "c", redirectURI: Fixture.redirectURI, responseType: .idToken).pkce == nil)
    }

    @Test(
        "response type words parse in any order; unknown ones do not",
        arguments: [
            ("token id_token", ResponseType.idTokenToken), ("id_token code", .codeIDToken), ("token code id_token", .codeIDTokenToken),
            ("token code", .codeToken), ("token", nil), ("code code", nil), ("", nil), ("code  token", nil), ("none", nil),
        ] as [(String, ResponseType?)])
    func responseTypeParsing(_ text: String, _ expected: ResponseType?) {
        #expect(ResponseType(rawValue: text) == expected)
    }
}
