import Foundation
import JOSE
import Testing

@testable import OIDC

/// A registered redirect URI with a query string (RFC 6749 §3.1.2) through `OIDCClient`: the redirect must come
/// back with the registered parameters and values, and `finishLogin` does not read them as response parameters.
@Suite("OIDCClient: redirect URIs with a query string")
struct OIDCClientRedirectQueryTests {
    static let redirectURI = URL(string: "https://app.example.com/callback?tenant=a&lang=en")!

    func started() async throws -> (OIDCClient, ScriptedTransport, PendingLogin) {
        let (client, transport) = try OIDCClientTests.client()
        let pending = try await client.startLogin(LoginRequest(redirectURI: Self.redirectURI))
        let sent = URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "redirect_uri" }?.value
        #expect(sent == Self.redirectURI.absoluteString)
        OIDCClientTests.tokens(transport, idToken: try OIDCClientTests.idToken([("nonce", .string(try #require(pending.nonce).value))]))
        return (client, transport, pending)
    }

    @Test(
        "the registered parameters come back (in any order, among the response's): the login finishes",
        arguments: [
            "https://app.example.com/callback?tenant=a&lang=en&code=the-code&state=STATE",
            "https://app.example.com/callback?code=the-code&lang=en&state=STATE&tenant=a",
        ])
    func finishes(_ redirect: String) async throws {
        let (client, _, pending) = try await started()
        let url = try #require(URL(string: redirect.replacingOccurrences(of: "STATE", with: pending.state)))
        let login = try await client.finishLogin(pending, callback: .url(url))
        #expect(login.idToken.subject == "alice")
    }

    @Test(
        "a redirect without a registered parameter, or with another value, is redirect_uri_mismatch",
        arguments: [
            "https://app.example.com/callback?lang=en&code=the-code&state=STATE",
            "https://app.example.com/callback?tenant=b&lang=en&code=the-code&state=STATE",
            "https://app.example.com/callback?code=the-code&state=STATE",
        ])
    func refused(_ redirect: String) async throws {
        let (client, transport, pending) = try await started()
        let url = try #require(URL(string: redirect.replacingOccurrences(of: "STATE", with: pending.state)))
        await expectOIDCError(.redirectURIMismatch) { try await client.finishLogin(pending, callback: .url(url)) }
        #expect(transport.calls(OIDCClientTests.tokenURL) == 0)
    }

    @Test("the parameters-only form (behind a proxy) skips the registered parameters too")
    func parametersOnly() async throws {
        let (client, _, pending) = try await started()
        let login = try await client.finishLogin(pending, callback: .parameters("tenant=a&lang=en&code=the-code&state=\(pending.state)"))
        #expect(login.idToken.subject == "alice")
    }
}
