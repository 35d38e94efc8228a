import Foundation
import Testing

@testable import OIDC

@Suite("Issuer error codes are distinct")
struct IssuerErrorCodeTests {
    @Test("the redirect's iss (RFC 9207) and the ID Token's iss claim fail with different codes")
    func distinct() async throws {
        #expect(OIDCError.Code.responseIssuerMismatch != OIDCError.Code.issuerMismatch)
        #expect(OIDCError.Code.responseIssuerMismatch.rawValue == "response_issuer_mismatch")
        #expect(OIDCError.Code.issuerMismatch.rawValue == "issuer_mismatch")
        let codes: [OIDCError.Code] = [.issuerMismatch, .responseIssuerMismatch, .discoveryIssuerMismatch, .missingIssuer, .invalidIssuerURL]
        #expect(Set(codes.map(\.rawValue)).count == codes.count)

        // And the redirect check really throws the redirect's code.
        let request = Fixture.request()
        let pending = try request.pendingAuthorization(at: Fixture.endpoint, issuer: Fixture.issuer, issuerParameterSupported: true)
        let state = try #require(try Fixture.query(pending.authorizationURL, "state"))
        let redirect = URL(string: "https://app.example.com/callback?code=abc&state=\(state)&iss=https%3A%2F%2Fevil.example.com")!
        do {
            _ = try pending.parseRedirect(redirect)
            Issue.record("a foreign iss was accepted")
        } catch let error as OIDCError {
            #expect(error.code.rawValue == "response_issuer_mismatch")
        }
    }
}
