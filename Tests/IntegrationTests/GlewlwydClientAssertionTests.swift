import Foundation
import JOSE
import OIDC
import Testing

/// draft-ietf-oauth-rfc7523bis against glewlwyd 2.7.5, through `OIDCClient` (PAR with private_key_jwt):
/// the server compares `aud` with the URL of the endpoint called (`validate_jwt_assertion_request` in its
/// `protocol_oidc.c`), so the default issuer audience is refused there, and the explicit endpoint choice works,
/// with or without the explicit `typ`.
extension GlewlwydSerial.GlewlwydFAPITests {
    func assertionClient(audience: ClientAssertionAudience, typed: Bool) async throws -> OIDCClient {
        let key = try JWK(pem: String(contentsOfFile: try Glewlwyd.value("GLEWLWYD_PKJWT_KEY_FILE"), encoding: .utf8))
        var configuration = OIDCClient.Configuration()
        configuration.assertionAudience = audience
        configuration.explicitlyTypedClientAssertions = typed
        configuration.dpop = DPoPBinding(key: try DPoPKey.generate())
        return try await OIDCClient.discover(
            issuer: try Glewlwyd.value("GLEWLWYD_ISSUER"),
            authentication: .privateKeyJWT(clientID: try Glewlwyd.value("GLEWLWYD_PKJWT_CLIENT_ID"), key: key, algorithm: .es256),
            transport: Glewlwyd.transport, configuration: configuration)
    }

    @Test("private_key_jwt at PAR: glewlwyd refuses aud = issuer (the default) and accepts the explicit endpoint audience, typed or not")
    func assertionAudienceAtGlewlwyd() async throws {
        let redirectURI = try Glewlwyd.redirectURI
        let refused = await #expect(throws: OIDCError.self) {
            _ = try await assertionClient(audience: .issuer, typed: true).startLogin(LoginRequest(redirectURI: redirectURI, push: .always))
        }
        // glewlwyd answers an unauthenticated PAR client with an empty 401/403 body.
        #expect([400, 401, 403].contains(refused?.httpStatus ?? 0), "\(String(describing: refused))")
        for typed in [false, true] {
            let pending = try await assertionClient(audience: .endpointURL, typed: typed).startLogin(LoginRequest(redirectURI: redirectURI, push: .always))
            let query = try #require(URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems).map(\.name)
            #expect(query == ["client_id", "request_uri"])
        }
    }
}
