import Foundation
import JOSE
import Testing

@testable import OIDC

/// draft-ietf-oauth-rfc7523bis through `OIDCClient`: every endpoint the client authenticates to (PAR,
/// CIBA, token, revocation) gets an assertion whose `aud` is the issuer as a single string, and whose
/// header carries `typ: client-authentication+jwt` only when the configuration says so.
@Suite("OIDCClient client assertions: aud = issuer (one string), explicit typ on request")
struct OIDCClientAssertionTypeTests {
    typealias F = IDTokenFixtures

    static func metadata() -> ProviderMetadata {
        var metadata = OIDCClientTests.metadata()
        metadata.pushedAuthorizationRequestEndpoint = URL(string: "https://op.example.com/par")
        metadata.backchannelAuthenticationEndpoint = URL(string: "https://op.example.com/ciba")
        return metadata
    }

    static func transport() -> CannedTransport {
        CannedTransport { request in
            func json(_ text: String, _ status: Int = 200) -> TransportResponse {
                TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(text.utf8))
            }
            switch request.url.path {
            case "/par": return json(#"{"request_uri":"urn:ietf:params:oauth:request_uri:abc","expires_in":60}"#, 201)
            case "/ciba": return json(#"{"auth_req_id":"r1","expires_in":120,"interval":5}"#)
            case "/revoke": return json("{}")
            case "/token":
                return json(
                    #"{"access_token":"x","token_type":"N_A","issued_token_type":"urn:ietf:params:oauth:token-type:id_token"}"#)
            default: return json(#"{"error":"not_found"}"#, 404)
            }
        }
    }

    /// The assertions the client sent, one per request, in order.
    func assertions(typed: Bool, authentication: ClientAuthentication) async throws -> [(path: String, header: JSONObject, claims: JSONObject)] {
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        configuration.explicitlyTypedClientAssertions = typed
        let transport = Self.transport()
        let client = try OIDCClient(metadata: Self.metadata(), authentication: authentication, transport: transport, configuration: configuration)
        _ = try await client.startLogin(LoginRequest(redirectURI: URL(string: "https://app.example.com/callback")!, push: .always))
        _ = try await client.startBackchannelLogin(DecoupledAuthenticationRequest(hint: .loginHint("alice")))
        _ = try await client.tokenClient.exchangeToken(
            TokenExchangeRequest(subjectToken: "st", subjectTokenType: TokenTypeIdentifier(rawValue: "urn:ietf:params:oauth:token-type:access_token")))
        try await client.revoke("rt-1")
        return try transport.requests.map { request in
            let assertion = try #require(formFields(request)["client_assertion"])
            return (request.url.path, try OIDCClientFAPITests.header(assertion), try OIDCClientFAPITests.payload(assertion))
        }
    }

    static let authentications: [String] = ["private_key_jwt", "client_secret_jwt"]

    static func authentication(_ name: String) throws -> ClientAuthentication {
        name == "private_key_jwt"
            ? .privateKeyJWT(clientID: F.clientID, key: try JWK.generate(.ec(.p256)), algorithm: .es256)
            : .clientSecretJWT(clientID: F.clientID, secret: "s3cret-s3cret-s3cret-s3cret-s3cret!")
    }

    @Test("by default: aud = the issuer as one string at PAR, CIBA, token and revocation; typ JWT", arguments: authentications)
    func defaultAudience(_ name: String) async throws {
        let sent = try await assertions(typed: false, authentication: try Self.authentication(name))
        #expect(sent.map(\.path) == ["/par", "/ciba", "/token", "/revoke"])
        for assertion in sent {
            #expect(assertion.claims["aud"] == .string(F.issuer), "\(assertion.path)")
            #expect(assertion.header["typ"] == "JWT", "\(assertion.path)")
        }
    }

    @Test("explicitlyTypedClientAssertions: typ client-authentication+jwt at every endpoint, aud still the issuer", arguments: authentications)
    func explicitType(_ name: String) async throws {
        let sent = try await assertions(typed: true, authentication: try Self.authentication(name))
        #expect(sent.count == 4)
        for assertion in sent {
            #expect(assertion.header["typ"] == "client-authentication+jwt", "\(assertion.path)")
            #expect(assertion.claims["aud"] == .string(F.issuer), "\(assertion.path)")
        }
    }
}
