import Foundation
import JOSE
import Testing

@testable import OIDC

/// Third-party-initiated login (OpenID Connect Core §4) and the RP-initiated logout redirect's `state` round-trip.
@Suite("OIDCClient: third-party-initiated login and the post-logout redirect")
struct ThirdPartyLoginTests {
    static let redirect = URL(string: "https://rp.example.com/callback")!
    static let targets = [URL(string: "https://rp.example.com/app")!]

    static func client() throws -> OIDCClient {
        try OIDCClient(
            metadata: OIDCClientTests.metadata(), authentication: .clientSecretBasic(clientID: F.clientID, secret: "s3cret-s3cret-s3cret-s3cret-s3cret!"),
            transport: ScriptedTransport(), configuration: OIDCClient.Configuration(clock: TestClock().now))
    }

    static func form(_ items: [(String, String)]) -> String { FormURLEncoding.encode(items.map { (name: $0.0, value: $0.1) }) }

    @Test("iss of this issuer: a LoginRequest with login_hint; target_link_uri returned when allowed")
    func accepted() async throws {
        let client = try Self.client()
        let (login, target) = try client.thirdPartyLoginRequest(
            Self.form([("iss", F.issuer), ("login_hint", "alice@example.com"), ("target_link_uri", "https://rp.example.com/app/reports?x=1")]),
            redirectURI: Self.redirect, allowedTargets: Self.targets)
        #expect(login.loginHint == "alice@example.com")
        #expect(login.redirectURI == Self.redirect)
        #expect(target?.absoluteString == "https://rp.example.com/app/reports?x=1")
        let pending = try await client.startLogin(login)
        #expect(pending.url.absoluteString.contains("login_hint=alice%40example.com"))
        // Only iss: no hint, no target.
        let (plain, none) = try client.thirdPartyLoginRequest("iss=" + FormURLEncoding.encode(F.issuer), redirectURI: Self.redirect)
        #expect(plain.loginHint == nil && none == nil)
    }

    @Test("no iss, another issuer, a repeated parameter: invalid_login_initiation; a target off the allow-list: login_target_not_allowed")
    func refused() throws {
        let client = try Self.client()
        func code(_ form: String) -> String? {
            do {
                _ = try client.thirdPartyLoginRequest(form, redirectURI: Self.redirect, allowedTargets: Self.targets)
                return nil
            } catch let error as OIDCError { return error.code.rawValue } catch { return "\(error)" }
        }
        #expect(code(Self.form([("login_hint", "alice")])) == "invalid_login_initiation")
        #expect(code(Self.form([("iss", "https://evil.example.com")])) == "invalid_login_initiation")
        #expect(code(Self.form([("iss", F.issuer), ("iss", F.issuer)])) == "invalid_login_initiation")
        #expect(code("iss=%zz") == "invalid_login_initiation")
        for target in [
            "https://evil.example.com/app", "https://rp.example.com/apple", "https://rp.example.com/", "http://rp.example.com/app",
            "https://rp.example.com:8443/app", "https://rp.example.com/app/../admin", "https://rp.example.com/app/%2e%2e/admin",
            "https://user@rp.example.com/app", "javascript:alert(1)",
        ] {
            #expect(code(Self.form([("iss", F.issuer), ("target_link_uri", target)])) == "login_target_not_allowed", "\(target)")
        }
        // No allow-list: every target refused.
        #expect(throws: OIDCError.self) {
            try client.thirdPartyLoginRequest(Self.form([("iss", F.issuer), ("target_link_uri", "https://rp.example.com/app")]), redirectURI: Self.redirect)
        }
    }

    @Test("post-logout redirect: the same endpoint, the state sent (or none when none was sent)")
    func logoutRedirect() throws {
        let client = try Self.client()
        let back = URL(string: "https://rp.example.com/logged-out")!
        try client.checkLogoutRedirect(URL(string: "https://rp.example.com/logged-out?state=s-1")!, postLogoutRedirectURI: back, state: "s-1")
        try client.checkLogoutRedirect(back, postLogoutRedirectURI: back, state: nil)
        func code(_ url: String, _ state: String?) -> OIDCError.Code? {
            do {
                try client.checkLogoutRedirect(URL(string: url)!, postLogoutRedirectURI: back, state: state)
                return nil
            } catch let error as OIDCError { return error.code } catch { return nil }
        }
        #expect(code("https://rp.example.com/logged-out", "s-1") == .stateMismatch)
        #expect(code("https://rp.example.com/logged-out?state=other", "s-1") == .stateMismatch)
        #expect(code("https://rp.example.com/logged-out?state=s-1", nil) == .stateMismatch)
        #expect(code("https://rp.example.com/logged-out?state=s-1&state=s-1", "s-1") == .duplicateResponseParameter)
        #expect(code("https://evil.example.com/logged-out?state=s-1", "s-1") == .redirectURIMismatch)
        #expect(code("https://rp.example.com/elsewhere?state=s-1", "s-1") == .redirectURIMismatch)
    }
}

/// Front-channel logout (Front-Channel Logout 1.0 §2): the `sid` to end, only for this issuer.
@Suite("OIDCClient: front-channel logout request")
struct FrontChannelLogoutRequestTests {
    @Test("iss of this issuer: the sid; another iss, a missing or repeated parameter: refused")
    func read() throws {
        let client = try ThirdPartyLoginTests.client()
        let iss = FormURLEncoding.encode(F.issuer)
        #expect(try client.frontChannelLogoutSessionID("iss=\(iss)&sid=s-42") == "s-42")
        func code(_ query: String) -> OIDCError.Code? {
            do {
                _ = try client.frontChannelLogoutSessionID(query)
                return nil
            } catch let error as OIDCError { return error.code } catch { return nil }
        }
        #expect(code("iss=https%3A%2F%2Fevil.example.com&sid=s-42") == .frontChannelLogoutIssuerMismatch)
        #expect(code("sid=s-42") == .invalidFrontChannelLogout)
        #expect(code("iss=\(iss)") == .invalidFrontChannelLogout)
        #expect(code("iss=\(iss)&sid=") == .invalidFrontChannelLogout)
        #expect(code("iss=\(iss)&sid=a&sid=b") == .invalidFrontChannelLogout)
        #expect(code("iss=%zz&sid=a") == .invalidFrontChannelLogout)
    }
}
