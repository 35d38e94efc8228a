import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("An explicitly typed JWT of another kind is never an ID Token")
struct IDTokenTypeTests {
    @Test(
        "at+jwt, logout+jwt and other typed JWTs are refused even with ID Token claims",
        arguments: [
            "at+jwt", "application/at+jwt", "AT+JWT", "logout+jwt", "token-introspection+jwt", "dpop+jwt",
        ])
    func refused(typ: String) async throws {
        let key = try IDTokenFixtures.privateKey("rsa2048", kid: "k1")
        let set = try JWKSet(json: IDTokenFixtures.jwks([IDTokenFixtures.publicJWK("rsa2048", kid: "k1")]))
        let validator = IDTokenValidator(configuration: IDTokenFixtures.config(), keys: .keySet(set))
        let typed = try JWT.sign(IDTokenFixtures.claims(), key: key, algorithm: .rs256, header: ["typ": .string(typ)])
        do {
            _ = try await validator.validate(typed, expecting: IDTokenExpectations(nonce: .noNonceSent))
            Issue.record("a \(typ) token passed as an ID Token")
        } catch let error as OIDCError {
            #expect(error.code == .invalidIDTokenHeader, "\(error)")
        }
        // The same claims typed JWT pass: the refusal is the typ alone.
        _ = try await validator.validate(
            try JWT.sign(IDTokenFixtures.claims(), key: key, algorithm: .rs256, header: ["typ": "JWT"]), expecting: IDTokenExpectations(nonce: .noNonceSent))
    }
}
