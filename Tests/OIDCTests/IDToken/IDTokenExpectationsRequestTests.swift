import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("Expectations derived from the OAuthRequest that was sent")
struct IDTokenExpectationsRequestTests {
    func request(_ type: ResponseType) throws -> OAuthRequest {
        var request = OAuthRequest(
            clientID: F.clientID, redirectURI: URL(string: "https://rp.example/cb")!, responseType: type,
            state: try .random(), nonce: try Nonce("n-123"), pkce: nil)
        request.maxAge = 300
        request.acrValues = ["silver"]
        request.claims = ClaimsRequest(idToken: ["acr": .values(["gold", "platinum"], essential: true), "auth_time": .essential])
        return request
    }

    @Test("hybrid code id_token token")
    func hybrid() throws {
        let e = try IDTokenExpectations(
            request: request(.codeIDTokenToken),
            authorizationResponse: AuthorizationResponse(code: "c1", idToken: "x", accessToken: "a1"))
        #expect(e.flow == .hybrid(code: "c1", accessToken: "a1"))
        #expect(e.nonce == "n-123")
        #expect(e.maxAge == 300)
        #expect(e.authTimeEssential)
        #expect(e.acrValues == ["gold", "platinum"])
        #expect(e.acrEssential)
    }

    @Test("implicit and token endpoint")
    func others() throws {
        let implicit = try IDTokenExpectations(request: request(.idTokenToken), authorizationResponse: AuthorizationResponse(idToken: "x", accessToken: "a1"))
        #expect(implicit.flow == .implicit(accessToken: "a1"))
        let idOnly = try IDTokenExpectations(request: request(.idToken), authorizationResponse: AuthorizationResponse(idToken: "x"))
        #expect(idOnly.flow == .implicit())
        let token = IDTokenExpectations(request: try request(.code), tokenEndpointAccessToken: "a2")
        #expect(token.flow == .tokenEndpoint(accessToken: "a2"))
        var plain = try request(.code)
        plain.claims = nil
        let voluntary = IDTokenExpectations(request: plain, tokenEndpointAccessToken: nil)
        #expect(voluntary.acrValues == ["silver"])
        #expect(!voluntary.acrEssential)
        #expect(!voluntary.authTimeEssential)
    }

    @Test("a hybrid response without code")
    func hybridWithoutCode() async throws {
        let r = try request(.codeIDToken)
        await expectOIDCError(.missingResponseParameter) { try IDTokenExpectations(request: r, authorizationResponse: AuthorizationResponse(idToken: "x")) }
    }
}
