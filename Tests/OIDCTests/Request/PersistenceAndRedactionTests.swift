import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("persistence and redaction")
struct PersistenceAndRedactionTests {
    @Test("a pending login survives JSONEncoder/JSONDecoder and finishes from the redirect")
    func persistence() throws {
        var request = try OAuthRequest(clientID: "client-1", redirectURI: Fixture.redirectURI, scopes: ["profile"])
        request.prompt = [.login]
        request.maxAge = 600
        request.claims = ClaimsRequest(idToken: ["acr": .essential])
        request.additionalParameters["correlation_id"] = "c-1"
        request.parameterLengthLimits["context"] = 280
        request.idTokenHint = "old.id.token"
        let pending = try request.pendingAuthorization(at: Fixture.endpoint, issuer: Fixture.issuer, issuerParameterSupported: true)

        let data = try JSONEncoder().encode(pending)
        let restored = try JSONDecoder().decode(PendingAuthorization.self, from: data)
        #expect(restored == pending)
        #expect(restored.authorizationURL == pending.authorizationURL)
        #expect(restored.codeVerifier == pending.codeVerifier)
        #expect(restored.nonce == pending.nonce)

        let state = try #require(try Fixture.query(pending.authorizationURL, "state"))
        let redirect = URL(string: "https://app.example.com/callback?code=abc&state=\(state)&iss=https%3A%2F%2Fidp.example.com")!
        let response = try restored.parseRedirect(redirect)
        #expect(response.code == "abc")
        #expect(response.issuer == Fixture.issuer)
        // The challenge sent matches the verifier kept.
        let verifier = try #require(restored.codeVerifier)
        #expect(try Fixture.query(pending.authorizationURL, "code_challenge") == PKCE(verifier: verifier).challenge)
    }

    @Test("tampered persisted secrets are rejected on decoding")
    func tampered() throws {
        let pending = try Fixture.pending()
        var json = String(decoding: try JSONEncoder().encode(pending), as: UTF8.self)
        json = json.replacingOccurrences(of: Fixture.verifierText, with: "short")
        #expect(throws: OIDCError.self) { try JSONDecoder().decode(PendingAuthorization.self, from: Data(json.utf8)) }
    }

    static var secrets: [String] {
        [Fixture.stateText, Fixture.nonceText, Fixture.verifierText, "old.id.token", "the-code", "the.id.token", "the-access-token", "the-session"]
    }

    static func rendered(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), dumped, "\(value)"]
    }

    @Test("no secret in description, debugDescription or dump of any type holding one")
    func redaction() throws {
        var request = Fixture.request(.codeIDTokenToken)
        request.idTokenHint = "old.id.token"
        let pending = try request.pendingAuthorizationWithoutIssuerCheck(at: Fixture.endpoint)
        let response = AuthorizationResponse(
            code: "the-code", idToken: "the.id.token", accessToken: "the-access-token",
            tokenType: "Bearer", expiresIn: 60, state: Fixture.stateText,
            sessionState: "the-session")
        let plain = PKCE(verifier: try CodeVerifier(Fixture.verifierText), method: .plain)
        let values: [Any] = [
            request, pending, response, request.state, request.nonce as Any, request.pkce as Any,
            try CodeVerifier(Fixture.verifierText), plain, [request.state],
        ]
        for value in values {
            for text in Self.rendered(value) {
                for secret in Self.secrets {
                    #expect(!text.contains(secret), "\(type(of: value)) shows a secret")
                }
            }
        }
        #expect(request.description.contains("client-1"))
        #expect(response.description.contains("Bearer"))
        #expect(String(describing: request.pkce!).contains(Fixture.challenge))
    }

    @Test("no secret in any error text from request building or redirect checks")
    func errorsHaveNoSecrets() throws {
        var request = Fixture.request()
        request.additionalParameters["context"] = Fixture.stateText + Fixture.stateText
        request.parameterLengthLimits["context"] = 10
        let tooLong = try #require(oidcError { _ = try request.authorizationURL(at: Fixture.endpoint) })
        #expect(!tooLong.description.contains(Fixture.stateText))
        let bad = try #require(oidcError { _ = try CodeVerifier(Fixture.verifierText + "!") })
        #expect(!bad.description.contains(Fixture.verifierText))
        let badState = try #require(oidcError { _ = try OAuthState("s3kr1t\u{7}") })
        #expect(!badState.description.contains("s3kr1t"))
    }
}
