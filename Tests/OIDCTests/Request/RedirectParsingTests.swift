import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("redirect parsing")
struct RedirectParsingTests {
    static let s = Fixture.stateText
    static let cb = "https://app.example.com/callback"

    struct Success: Sendable, CustomTestStringConvertible {
        let type: ResponseType
        let mode: ResponseMode?
        let redirect: String
        let expected: AuthorizationResponse
        var testDescription: String { "\(type.rawValue) via \(mode?.rawValue ?? "default")" }
    }

    static let successes: [Success] = [
        Success(
            type: .code, mode: nil, redirect: "\(cb)?code=SplxlOBeZQQYbYS6WxSbIA&state=\(s)",
            expected: AuthorizationResponse(code: "SplxlOBeZQQYbYS6WxSbIA", state: s)),
        Success(
            type: .code, mode: nil, redirect: "\(cb)?code=a%2Bb+c&state=\(s)&session_state=ss.1&iss=https%3A%2F%2Fidp.example.com&x=1",
            expected: AuthorizationResponse(
                code: "a+b c", state: s, sessionState: "ss.1", issuer: Fixture.issuer,
                additionalParameters: ["x": "1"])),
        Success(
            type: .code, mode: .fragment, redirect: "\(cb)#code=c1&state=\(s)",
            expected: AuthorizationResponse(code: "c1", state: s)),
        Success(
            type: .code, mode: nil, redirect: "\(cb)?code=c1&state=\(s)#_=_",
            expected: AuthorizationResponse(code: "c1", state: s)),
        Success(
            type: .idToken, mode: nil, redirect: "\(cb)#id_token=h.p.s&state=\(s)",
            expected: AuthorizationResponse(idToken: "h.p.s", state: s)),
        Success(
            type: .idTokenToken, mode: nil,
            redirect: "\(cb)#access_token=at&token_type=Bearer&expires_in=3600&id_token=h.p.s&state=\(s)&scope=openid+profile",
            expected: AuthorizationResponse(
                idToken: "h.p.s", accessToken: "at", tokenType: "Bearer", expiresIn: 3600,
                scope: "openid profile", state: s)),
        Success(
            type: .codeIDToken, mode: nil, redirect: "\(cb)#code=c1&id_token=h.p.s&state=\(s)",
            expected: AuthorizationResponse(code: "c1", idToken: "h.p.s", state: s)),
        Success(
            type: .codeToken, mode: nil, redirect: "\(cb)#code=c1&access_token=at&token_type=Bearer&state=\(s)",
            expected: AuthorizationResponse(code: "c1", accessToken: "at", tokenType: "Bearer", state: s)),
        Success(
            type: .codeIDTokenToken, mode: nil,
            redirect: "\(cb)?ignored=1#code=c1&id_token=h.p.s&access_token=at&token_type=Bearer&state=\(s)",
            expected: AuthorizationResponse(code: "c1", idToken: "h.p.s", accessToken: "at", tokenType: "Bearer", state: s)),
        Success(
            type: .code, mode: nil, redirect: "HTTPS://APP.example.com:443/callback?code=c1&state=\(s)",
            expected: AuthorizationResponse(code: "c1", state: s)),
        Success(
            type: .code, mode: nil, redirect: "\(cb)?code=c1&state=\(s)&error_description=&scope=",
            expected: AuthorizationResponse(code: "c1", state: s)),
    ]

    @Test("successful redirects for every response type", arguments: successes)
    func success(_ c: Success) throws {
        let pending = try Fixture.pending(c.type, responseMode: c.mode)
        #expect(try pending.parseRedirect(URL(string: c.redirect)!) == c.expected)
    }

    @Test("the redirect URI's own query items are not response parameters")
    func redirectURIWithQuery() throws {
        let pending = try Fixture.pending(redirectURI: URL(string: "https://app.example.com/cb?tenant=a&x=1")!)
        let response = try pending.parseRedirect(URL(string: "https://app.example.com/cb?tenant=a&x=1&code=c1&state=\(Self.s)")!)
        #expect(response.code == "c1")
        #expect(response.additionalParameters.isEmpty)
    }

    @Test(
        "custom-scheme and loopback redirect URIs",
        arguments: [
            ("com.example.app:/oauth2redirect", "com.example.app:/oauth2redirect?code=c1&state=\(s)"),
            ("http://127.0.0.1:8765/callback", "http://127.0.0.1:8765/callback?code=c1&state=\(s)"),
            ("https://app.example.com", "https://app.example.com/?code=c1&state=\(s)"),
        ])
    func otherRedirectURIs(_ redirectURI: String, _ redirect: String) throws {
        let pending = try Fixture.pending(redirectURI: URL(string: redirectURI)!)
        #expect(try pending.parseRedirect(URL(string: redirect)!).code == "c1")
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        let what: String
        let type: ResponseType
        let mode: ResponseMode?
        let redirect: String
        let code: OIDCError.Code
        var testDescription: String { what }
        init(_ what: String, _ redirect: String, _ code: OIDCError.Code) {
            self.init(what, .code, nil, redirect, code)
        }
        init(_ what: String, _ type: ResponseType, _ mode: ResponseMode?, _ redirect: String, _ code: OIDCError.Code) {
            self.what = what
            self.type = type
            self.mode = mode
            self.redirect = redirect
            self.code = code
        }
    }

    static let failures: [Failure] = [
        Failure("state mismatch", "\(cb)?code=c1&state=other", .stateMismatch),
        Failure("state differs in the last character", "\(cb)?code=c1&state=\(s.dropLast())C", .stateMismatch),
        Failure("state prefix", "\(cb)?code=c1&state=\(s.dropLast())", .stateMismatch),
        Failure("missing state", "\(cb)?code=c1", .stateMismatch),
        Failure("empty state", "\(cb)?code=c1&state=", .stateMismatch),
        Failure("missing code", "\(cb)?state=\(s)", .missingResponseParameter),
        Failure("empty code", "\(cb)?code=&state=\(s)", .missingResponseParameter),
        Failure("no parameters at all", "\(cb)", .missingResponseParameter),
        Failure("missing id_token (hybrid)", .codeIDToken, nil, "\(cb)#code=c1&state=\(s)", .missingResponseParameter),
        Failure("missing id_token (implicit)", .idTokenToken, nil, "\(cb)#access_token=a&token_type=Bearer&state=\(s)", .missingResponseParameter),
        Failure("missing access_token", .codeToken, nil, "\(cb)#code=c1&state=\(s)", .missingResponseParameter),
        Failure("missing token_type", .codeToken, nil, "\(cb)#code=c1&access_token=a&state=\(s)", .missingResponseParameter),
        Failure("missing code (hybrid)", .codeIDToken, nil, "\(cb)#id_token=h.p.s&state=\(s)", .missingResponseParameter),
        Failure("duplicate code", "\(cb)?code=c1&code=c2&state=\(s)", .duplicateResponseParameter),
        Failure("duplicate state", "\(cb)?code=c1&state=\(s)&state=\(s)", .duplicateResponseParameter),
        Failure("duplicate empty parameter", "\(cb)?code=c1&state=\(s)&x=&x=", .duplicateResponseParameter),
        Failure("code and error", "\(cb)?code=c1&error=access_denied&state=\(s)", .ambiguousResponse),
        Failure("id_token and error", .idToken, nil, "\(cb)#id_token=h&error=access_denied&state=\(s)", .ambiguousResponse),
        Failure("access token for a code request", "\(cb)?code=c1&access_token=a&state=\(s)", .invalidResponseParameter),
        Failure("id_token for a code request", "\(cb)?code=c1&id_token=h.p.s&state=\(s)", .invalidResponseParameter),
        Failure("code for an implicit request", .idToken, nil, "\(cb)#code=c1&id_token=h.p.s&state=\(s)", .invalidResponseParameter),
        Failure("bad expires_in", .codeToken, nil, "\(cb)#code=c&access_token=a&token_type=Bearer&expires_in=soon&state=\(s)", .invalidResponseParameter),
        Failure("negative expires_in", .codeToken, nil, "\(cb)#code=c&access_token=a&token_type=Bearer&expires_in=-1&state=\(s)", .invalidResponseParameter),
        Failure("fragment when the query is expected", "\(cb)#code=c1&state=\(s)", .responseModeMismatch),
        Failure("query when the fragment is expected", .codeIDToken, nil, "\(cb)?code=c1&id_token=h&state=\(s)", .responseModeMismatch),
        Failure("query when fragment mode was asked", .code, .fragment, "\(cb)?code=c1&state=\(s)", .responseModeMismatch),
        Failure("error in the query when the fragment is expected", .idToken, nil, "\(cb)?error=unauthorized_client&state=\(s)", .authorizationError),
        Failure("error in the query, forged state", .idToken, nil, "\(cb)?error=unauthorized_client&state=x", .stateMismatch),
        Failure("error in the fragment when the query is expected", "\(cb)#error=access_denied&state=\(s)", .authorizationError),
        Failure("error and code in the query when the fragment is expected", .codeIDToken, nil, "\(cb)?error=e&code=c&state=\(s)", .responseModeMismatch),
        Failure("fragment response ignores an empty query", .idToken, nil, "\(cb)?#id_token=&state=\(s)", .missingResponseParameter),
        Failure("redirect URL when form_post was asked", .code, .formPost, "\(cb)?code=c1&state=\(s)", .responseModeMismatch),
        Failure("other host", "https://evil.example.com/callback?code=c1&state=\(s)", .redirectURIMismatch),
        Failure("other scheme", "http://app.example.com/callback?code=c1&state=\(s)", .redirectURIMismatch),
        Failure("other port", "https://app.example.com:8443/callback?code=c1&state=\(s)", .redirectURIMismatch),
        Failure("other path", "https://app.example.com/callback/x?code=c1&state=\(s)", .redirectURIMismatch),
        Failure("path case", "https://app.example.com/Callback?code=c1&state=\(s)", .redirectURIMismatch),
        Failure("custom scheme", "com.evil:/callback?code=c1&state=\(s)", .redirectURIMismatch),
        // A malformed escape such as `%ZZ` never reaches us in a URL: URL(string:) re-encodes the `%`.
        // It is checked through form posts below.
        Failure("invalid UTF-8", "\(cb)?code=%FF&state=\(s)", .invalidPercentEncoding),
    ]

    @Test("bad redirects are typed errors", arguments: failures)
    func failure(_ c: Failure) throws {
        let pending = try Fixture.pending(c.type, responseMode: c.mode)
        guard let url = URL(string: c.redirect) else {
            Issue.record("bad test URL")
            return
        }
        let error = oidcError { _ = try pending.parseRedirect(url) }
        #expect(error?.code == c.code)
        // No secret in the error text.
        for secret in [Fixture.stateText, Fixture.nonceText, Fixture.verifierText, "c1", "h.p.s"] {
            #expect(!(error?.description.contains(secret) ?? false))
        }
    }

    static let oauthErrorCodes: [OAuthError.Code] = [
        .invalidRequest, .unauthorizedClient, .accessDenied, .unsupportedResponseType, .invalidScope, .serverError,
        .temporarilyUnavailable, .interactionRequired, .loginRequired, .accountSelectionRequired, .consentRequired,
        .invalidRequestURI, .invalidRequestObject, .requestNotSupported, .requestURINotSupported, .registrationNotSupported,
        OAuthError.Code(rawValue: "vendor_specific_error"),
    ]

    @Test("error redirects carry the OAuth error, standard or not", arguments: oauthErrorCodes)
    func oauthError(_ code: OAuthError.Code) throws {
        for (type, separator) in [(ResponseType.code, "?"), (.codeIDToken, "#")] {
            let pending = try Fixture.pending(type)
            let url = URL(
                string:
                    "\(Self.cb)\(separator)error=\(code.rawValue)&error_description=The+user+said+no%21&error_uri=https%3A%2F%2Fidp.example.com%2Fe&state=\(Self.s)"
            )!
            let error = try #require(oidcError { _ = try pending.parseRedirect(url) })
            #expect(error.code == .authorizationError)
            let oauth = try #require(error.oauthError)
            #expect(oauth.code == code)
            #expect(oauth.error == code.rawValue)
            #expect(oauth.code.isStandard == (code.rawValue != "vendor_specific_error"))
            #expect(oauth.errorDescription == "The user said no!")
            #expect(oauth.errorURI == "https://idp.example.com/e")
            #expect(error.reason.contains(code.rawValue))
            #expect(!error.description.contains(Fixture.stateText))
        }
    }

    @Test("an error redirect with a bad state is a state mismatch that still shows the error")
    func errorWithBadState() throws {
        let pending = try Fixture.pending()
        let error = oidcError { _ = try pending.parseRedirect(URL(string: "\(Self.cb)?error=login_required&state=forged")!) }
        #expect(error?.code == .stateMismatch)
        #expect(error?.oauthError?.code == .loginRequired)
        let missing = oidcError { _ = try pending.parseRedirect(URL(string: "\(Self.cb)?error=access_denied")!) }
        #expect(missing?.code == .stateMismatch)
    }

    struct Issuer: Sendable, CustomTestStringConvertible {
        let what: String
        let issuer: String?
        let required: Bool
        let iss: String?
        let code: OIDCError.Code?
        var testDescription: String { what }
    }

    @Test(
        "iss (RFC 9207)",
        arguments: [
            Issuer(what: "matches", issuer: Fixture.issuer, required: true, iss: Fixture.issuer, code: nil),
            Issuer(what: "differs", issuer: Fixture.issuer, required: true, iss: "https://evil.example.com", code: .responseIssuerMismatch),
            Issuer(what: "trailing slash differs", issuer: Fixture.issuer, required: true, iss: Fixture.issuer + "/", code: .responseIssuerMismatch),
            Issuer(what: "missing when required", issuer: Fixture.issuer, required: true, iss: nil, code: .responseIssuerMismatch),
            Issuer(what: "missing when not required", issuer: Fixture.issuer, required: false, iss: nil, code: nil),
            Issuer(what: "present and wrong though not required", issuer: Fixture.issuer, required: false, iss: "https://other", code: .responseIssuerMismatch),
            Issuer(what: "present, issuer unknown", issuer: nil, required: false, iss: "https://any", code: nil),
        ])
    func issuer(_ c: Issuer) throws {
        let pending = try Fixture.pending(issuer: c.issuer, issuerParameterSupported: c.required)
        var redirect = "\(Self.cb)?code=c1&state=\(Self.s)"
        if let iss = c.iss { redirect += "&iss=" + FormURLEncoding.encode(iss) }
        let error = oidcError { _ = try pending.parseRedirect(URL(string: redirect)!) }
        #expect(error?.code == c.code)
        if c.code == nil { #expect(try pending.parseRedirect(URL(string: redirect)!).issuer == c.iss) }
        // The iss check also applies to error responses.
        if c.code != nil {
            let errorRedirect = redirect.replacingOccurrences(of: "code=c1", with: "error=access_denied")
            #expect(errorCode { _ = try pending.parseRedirect(URL(string: errorRedirect)!) } == c.code)
        }
    }

    @Test("iss required without an issuer is refused up front")
    func issuerRequiredWithoutIssuer() {
        #expect(errorCode { _ = try Fixture.pending(issuerParameterSupported: true) } == .invalidRequestParameter)
    }

    @Test("form_post bodies")
    func formPost() throws {
        let pending = try Fixture.pending(.codeIDToken, responseMode: .formPost)
        #expect(try Fixture.query(pending.authorizationURL, "response_mode") == "form_post")
        let response = try pending.parseFormPost("code=c1&id_token=h.p.s&state=\(Self.s)")
        #expect(response == AuthorizationResponse(code: "c1", idToken: "h.p.s", state: Self.s))
        #expect(errorCode { _ = try pending.parseFormPost("code=c1&id_token=h.p.s&state=x") } == .stateMismatch)
        let error = oidcError { _ = try pending.parseFormPost("error=consent_required&state=\(Self.s)") }
        #expect(error?.oauthError?.code == .consentRequired)
        #expect(errorCode { _ = try pending.parseFormPost("code=%ZZ&id_token=h.p.s&state=\(Self.s)") } == .invalidPercentEncoding)
        #expect(errorCode { _ = try pending.parseFormPost("code=c1&code=c1&id_token=h.p.s&state=\(Self.s)") } == .duplicateResponseParameter)
        let queryPending = try Fixture.pending()
        #expect(errorCode { _ = try queryPending.parseFormPost("code=c1&state=\(Self.s)") } == .responseModeMismatch)
    }
}
