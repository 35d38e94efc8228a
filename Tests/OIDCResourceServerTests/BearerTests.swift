import Foundation
import OIDC
import Testing

@testable import OIDCResourceServer

@Suite("RFC 6750 bearer extraction and challenges")
struct BearerTests {
    let header = BearerTokenExtractor()

    @Test("Authorization: Bearer with any scheme case, spaces, padding")
    func headerForms() throws {
        #expect(try header.token(headers: ["Authorization": "Bearer abc.DEF-_~+/=="]) == "abc.DEF-_~+/==")
        #expect(try header.token(headers: ["authorization": "bEaReR   tok"]) == "tok")
    }

    @Test(
        "malformed credentials are invalid_request",
        arguments: [
            "Bearer", "Bearer ", "Bearer a b", "Bearer a=b", "Bearer =abc", "Bearer a,b", "Bearer tok\u{0}", "Bearer  ",
        ])
    func malformed(value: String) async {
        await expectCode(.invalidBearerRequest) { _ = try header.token(headers: ["Authorization": value]) }
    }

    @Test("another scheme or no header is a missing token; two Authorization fields are invalid_request")
    func missingAndRepeated() async {
        await expectCode(.missingBearerToken) { _ = try header.token(headers: ["Authorization": "Basic dXNlcjpwYXNz"]) }
        await expectCode(.missingBearerToken) { _ = try header.token(headers: ["Authorization": "BearerX tok"]) }
        await expectCode(.missingBearerToken) { _ = try header.token(headers: [:]) }
        var two = HeaderFields()
        two.add("Authorization", "Bearer a")
        two.add("Authorization", "Bearer b")
        await expectCode(.invalidBearerRequest) { _ = try header.token(headers: two) }
    }

    @Test("form body and query only when enabled, and never two methods at once")
    func otherSources() async throws {
        let form: HeaderFields = ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8"]
        let body = Array("x=1&access_token=tok%2B1".utf8)
        // Not enabled: ignored.
        await expectCode(.missingBearerToken) { _ = try header.token(headers: form, method: "POST", query: "access_token=q", body: body) }
        let formSource = BearerTokenExtractor(source: .headerOrFormBody)
        #expect(try formSource.token(headers: form, method: "POST", body: body) == "tok+1")
        await expectCode(.missingBearerToken) { _ = try formSource.token(headers: form, method: "GET", body: body) }
        await expectCode(.missingBearerToken) { _ = try formSource.token(headers: ["Content-Type": "application/json"], method: "POST", body: body) }
        await expectCode(.missingBearerToken) { _ = try formSource.token(headers: [:], method: "GET", query: "access_token=q") }
        var both = form
        both["Authorization"] = "Bearer h"
        await expectCode(.invalidBearerRequest) { _ = try formSource.token(headers: both, method: "POST", body: body) }
        await expectCode(.invalidBearerRequest) {
            _ = try formSource.token(headers: form, method: "POST", body: Array("access_token=a&access_token=b".utf8))
        }
        let querySource = BearerTokenExtractor(source: .headerOrQuery)
        #expect(try querySource.token(headers: [:], query: "a=1&access_token=q") == "q")
        await expectCode(.invalidBearerRequest) { _ = try querySource.token(headers: ["Authorization": "Bearer h"], query: "access_token=q") }
        await expectCode(.invalidBearerRequest) { _ = try querySource.token(headers: [:], query: "access_token=a%20b") }
    }

    @Test("Bearer challenges (one ResourceChallenge type): status, error, description, scope, realm")
    func challenges() {
        func bearer(_ error: OIDCError, scopes: Set<String> = [], realm: String? = nil) -> (Int, String) {
            let refusal = AccessTokenRefusal(
                error: error, requestHeaders: ["Authorization": "Bearer x"], requiredScopes: scopes,
                dpopAlgorithms: ["ES256"], realm: realm)
            return (refusal.status, refusal.challenges.first?.headerValue ?? "")
        }
        #expect(bearer(OIDCError(.missingBearerToken, "none"), realm: "api") == (401, #"Bearer realm="api""#))
        #expect(
            bearer(OIDCError(.invalidBearerRequest, "two \"Authorization\" fields"))
                == (400, #"Bearer error="invalid_request", error_description="two Authorization fields""#))
        #expect(
            bearer(OIDCError(.expired, "the token expired at 1800000000"))
                == (401, #"Bearer error="invalid_token", error_description="the access token expired""#))
        #expect(
            bearer(OIDCError(.insufficientScope, "lacks admin"), scopes: ["write", "admin"])
                == (403, #"Bearer error="insufficient_scope", error_description="lacks admin", scope="admin write""#))
        #expect(bearer(OIDCError(.inactiveToken, "x")).1.contains("invalid_token"))
        // The provider, not the token: 503 or 500, no challenge, the error kept for logs.
        let down = AccessTokenRefusal(error: OIDCError(.transport, "connection refused"), requestHeaders: [:], dpopAlgorithms: [])
        #expect(down.status == 503 && down.challenges.isEmpty && down.cause.code == .transport)
        #expect(String(decoding: down.body, as: UTF8.self) == #"{"error":"temporarily_unavailable"}"#)
    }

    @Test("b64token: exactly ALPHA DIGIT - . _ ~ + / for every byte, then only = padding")
    func b64TokenCharacters() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(BearerTokenExtractor.isB64Token([byte]) == allowed.contains(byte), "\(byte)")
            #expect(
                BearerTokenExtractor.isB64Token([UInt8(ascii: "a"), byte, UInt8(ascii: "=")]) == allowed.contains(byte) || byte == UInt8(ascii: "="), "\(byte)")
        }
        #expect(BearerTokenExtractor.isB64Token("abc==".utf8) && !BearerTokenExtractor.isB64Token("=abc".utf8) && !BearerTokenExtractor.isB64Token("ab=c".utf8))
        #expect(!BearerTokenExtractor.isB64Token("".utf8) && !BearerTokenExtractor.isB64Token("==".utf8))
    }
}
