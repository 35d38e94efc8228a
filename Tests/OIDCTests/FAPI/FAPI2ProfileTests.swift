import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("FAPI 2.0 profile: each client rule refuses a non-compliant configuration")
struct FAPI2ProfileTests {
    static func metadata() -> ProviderMetadata {
        var metadata = ProviderMetadata(issuer: "https://as.example")
        metadata.authorizationEndpoint = URL(string: "https://as.example/authorize")
        metadata.tokenEndpoint = URL(string: "https://as.example/token")
        metadata.pushedAuthorizationRequestEndpoint = URL(string: "https://as.example/par")
        metadata.authorizationResponseIssParameterSupported = true
        metadata.idTokenSigningAlgValuesSupported = ["PS256", "ES256"]
        return metadata
    }

    static func compliant() throws -> FAPI2Configuration {
        FAPI2Configuration(
            metadata: metadata(),
            authentication: .privateKeyJWT(clientID: "app", key: try JWK.generate(.ec(.p256)), algorithm: .es256),
            dpop: DPoPBinding(key: try DPoPKey.generate()),
            request: try OAuthRequest(clientID: "app", redirectURI: URL(string: "https://app.example/cb")!))
    }

    /// The codes of the violations of the compliant configuration after `change`.
    func codes(_ change: (inout FAPI2Configuration) throws -> Void) throws -> [OIDCError.Code] {
        var configuration = try Self.compliant()
        try change(&configuration)
        return FAPI2Profile.violations(of: configuration).map(\.code)
    }

    @Test("a compliant configuration passes")
    func compliant() throws {
        #expect(try codes { _ in } == [])
        #expect(throws: Never.self) { try FAPI2Profile.check(try Self.compliant()) }
    }

    @Test("PAR: not pushed, or no PAR endpoint")
    func par() throws {
        #expect(try codes { $0.pushesAuthorizationRequests = false } == [.fapiPARRequired])
        #expect(try codes { $0.metadata.pushedAuthorizationRequestEndpoint = nil } == [.fapiPARRequired])
    }

    @Test("response_type code only, never a fragment response mode")
    func responseType() throws {
        #expect(try codes { $0.request.responseType = .codeIDToken } == [.fapiResponseTypeNotAllowed])
        #expect(try codes { $0.request.responseMode = .fragment } == [.fapiResponseTypeNotAllowed])
    }

    @Test("PKCE with S256: none or plain is refused")
    func pkce() throws {
        #expect(try codes { $0.request.pkce = nil } == [.fapiPKCERequired])
        #expect(try codes { $0.request.pkce = PKCE(verifier: try CodeVerifier(String(repeating: "a", count: 43)), method: .plain) } == [.fapiPKCERequired])
    }

    @Test("RFC 9207 iss must be advertised")
    func iss() throws {
        #expect(try codes { $0.metadata.authorizationResponseIssParameterSupported = nil } == [.fapiIssuerParameterRequired])
        #expect(try codes { $0.metadata.authorizationResponseIssParameterSupported = false } == [.fapiIssuerParameterRequired])
    }

    @Test("a sender constraint (DPoP) is required; its algorithm must be PS256, ES256 or EdDSA")
    func dpop() throws {
        #expect(try codes { $0.dpop = nil } == [.fapiSenderConstraintRequired])
        #expect(try codes { $0.dpop = DPoPBinding(key: try DPoPKey.generate(.ec(.p384))) } == [.fapiAlgorithmNotAllowed])
        #expect(try codes { $0.dpop = DPoPBinding(key: try DPoPKey(key: try JWK.generate(.rsa(bits: 2048)), algorithm: .rs256)) } == [.fapiAlgorithmNotAllowed])
    }

    @Test("private_key_jwt only, with PS256, ES256 or EdDSA")
    func clientAuthentication() throws {
        #expect(try codes { $0.authentication = .clientSecretBasic(clientID: "app", secret: "s") } == [.fapiClientAuthenticationNotAllowed])
        #expect(try codes { $0.authentication = .clientSecretJWT(clientID: "app", secret: "s") } == [.fapiClientAuthenticationNotAllowed])
        #expect(try codes { $0.authentication = .none(clientID: "app") } == [.fapiClientAuthenticationNotAllowed])
        let rsa = try JWK.generate(.rsa(bits: 2048))
        #expect(try codes { $0.authentication = .privateKeyJWT(clientID: "app", key: rsa, algorithm: .rs256) } == [.fapiAlgorithmNotAllowed])
        #expect(try codes { $0.authentication = .privateKeyJWT(clientID: "app", key: rsa, algorithm: .ps256) } == [])
        #expect(try codes { $0.authentication = .privateKeyJWT(clientID: "app", key: try JWK.generate(.ed25519), algorithm: .eddsa) } == [])
    }

    @Test("ID Token algorithms limited to PS256, ES256 and EdDSA: the client's list, else the provider's")
    func idTokenAlgorithms() throws {
        #expect(try codes { $0.idTokenAlgorithms = [.rs256, .es256] } == [.fapiAlgorithmNotAllowed])
        #expect(try codes { $0.metadata.idTokenSigningAlgValuesSupported = ["RS256", "ES256"] } == [.fapiAlgorithmNotAllowed])
        #expect(try codes { $0.metadata.idTokenSigningAlgValuesSupported = nil } == [.fapiAlgorithmNotAllowed])
        // A provider that lists more is fine when the client narrows its own list.
        #expect(
            try codes {
                $0.metadata.idTokenSigningAlgValuesSupported = ["RS256", "ES256"]; $0.idTokenAlgorithms = [.es256, .eddsa]
            } == [])
    }

    @Test("clock-skew tolerance at most 60 s")
    func leeway() throws {
        #expect(try codes { $0.leeway = 61 } == [.fapiClockSkewTooLarge])
        #expect(try codes { $0.leeway = -1 } == [.fapiClockSkewTooLarge])
        #expect(try codes { $0.leeway = 60 } == [])
    }

    @Test("check throws the first violation; violations lists them all")
    func all() throws {
        var configuration = try Self.compliant()
        configuration.pushesAuthorizationRequests = false
        configuration.dpop = nil
        configuration.authentication = .clientSecretPost(clientID: "app", secret: "s")
        #expect(
            FAPI2Profile.violations(of: configuration).map(\.code) == [.fapiPARRequired, .fapiSenderConstraintRequired, .fapiClientAuthenticationNotAllowed])
        do {
            try FAPI2Profile.check(configuration)
            Issue.record("expected a violation")
        } catch let error as OIDCError {
            #expect(error.code == .fapiPARRequired)
            #expect(!error.reason.contains("\"s\""))
        }
    }
}
