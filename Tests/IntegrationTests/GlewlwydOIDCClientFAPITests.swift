import Foundation
import JOSE
import OIDC
import OIDCNetworking
import Testing

/// The FAPI pieces through `OIDCClient` against glewlwyd 2.7.5: one client object pushes the
/// request (PAR), finishes the login with private_key_jwt (ES256, endpoint audience) and DPoP,
/// and calls UserInfo and refreshes DPoP-bound, then calls UserInfo through the client's session.
extension GlewlwydSerial.GlewlwydFAPITests {
    func oidcClient(dpop: DPoPBinding, fapi2Profile: Bool = false, requireIssuerParameter: Bool = false) async throws -> OIDCClient {
        let key = try JWK(pem: String(contentsOfFile: try Glewlwyd.value("GLEWLWYD_PKJWT_KEY_FILE"), encoding: .utf8))
        var configuration = OIDCClient.Configuration()
        configuration.dpop = dpop
        configuration.assertionAudience = .endpointURL  // glewlwyd refuses the issuer identifier
        configuration.fapi2Profile = fapi2Profile
        configuration.requireIssuerParameter = requireIssuerParameter
        if fapi2Profile { configuration.allowedAlgorithms = FAPI2Profile.algorithms }  // glewlwyd also lists RS256 & co.
        return try await OIDCClient.discover(
            issuer: try Glewlwyd.value("GLEWLWYD_ISSUER"),
            authentication: .privateKeyJWT(clientID: try Glewlwyd.value("GLEWLWYD_PKJWT_CLIENT_ID"), key: key, algorithm: .es256),
            transport: Glewlwyd.transport, configuration: configuration)
    }

    @Test("OIDCClient: PAR + PKCE + private_key_jwt (ES256, endpoint audience) + DPoP login, DPoP UserInfo, DPoP refresh")
    func oidcClientFAPILogin() async throws {
        let dpop = DPoPBinding(key: try DPoPKey.generate())
        let client = try await oidcClient(dpop: dpop)
        let pending = try await client.startLogin(LoginRequest(redirectURI: try Glewlwyd.redirectURI, push: .always))
        let query = try #require(URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems).map(\.name)
        #expect(query == ["client_id", "request_uri"])
        #expect(pending.codeVerifier != nil)
        let callback = try await Glewlwyd.login(pending.url, scope: "openid")
        let login = try await client.finishLogin(pending, callback: .url(callback))
        #expect(login.tokens.tokenType.lowercased() == "dpop")
        let claims = try await client.userInfo(login.tokens)
        #expect(claims["sub"]?.stringValue == login.idToken.subject)
        try #require(login.tokens.refreshToken != nil)
        let fresh = try await client.refresh(login.tokens)
        #expect(fresh.tokenType.lowercased() == "dpop")
        #expect(try await client.userInfo(fresh)["sub"]?.stringValue == login.idToken.subject)
        // The client's session sends the DPoP-bound token as DPoP (glewlwyd refuses it as Bearer).
        let userinfo = try #require(client.metadata.userinfoEndpoint)
        let session = try await client.session(tokens: fresh, configuration: .init(allowedOrigins: [userinfo]))
        for _ in 0..<3 {
            let response = try await session.send(TransportRequest(url: userinfo, headers: ["Accept": "application/json"]))
            #expect(response.status == 200, "\(response.status) \(response.headers)")
        }
        var bearer = TransportRequest(url: userinfo)
        bearer.headers["Authorization"] = "Bearer " + fresh.accessToken
        #expect(try await Glewlwyd.transport.send(bearer).status == 401)
    }

    @Test("OIDCClient: PAR carrying a request object (ES256, dpop_jkt inside), login finished with private_key_jwt and DPoP")
    func oidcClientPushedRequestObject() async throws {
        let dpop = DPoPBinding(key: try DPoPKey.generate())
        let client = try await oidcClient(dpop: dpop)
        let key = try JWK(pem: String(contentsOfFile: try Glewlwyd.value("GLEWLWYD_PKJWT_KEY_FILE"), encoding: .utf8))
        let pending = try await client.startLogin(
            LoginRequest(
                redirectURI: try Glewlwyd.redirectURI,
                push: .always, requestObject: RequestObject.Configuration(signature: .signed(key: key, algorithm: .es256))))
        let query = try #require(URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems).map(\.name)
        #expect(query == ["client_id", "request_uri"])
        let callback = try await Glewlwyd.login(pending.url, scope: "openid")
        let login = try await client.finishLogin(pending, callback: .url(callback))
        #expect(login.tokens.tokenType.lowercased() == "dpop")
        #expect(try await client.userInfo(login.tokens)["sub"]?.stringValue == login.idToken.subject)
    }

    @Test("OIDCClient: a front-channel login with the request object by value (ES256): the URL carries no parameter in clear but scope and response_type")
    func oidcClientRequestObjectByValue() async throws {
        let client = try await oidcClient(dpop: DPoPBinding(key: try DPoPKey.generate()))
        let key = try JWK(pem: String(contentsOfFile: try Glewlwyd.value("GLEWLWYD_PKJWT_KEY_FILE"), encoding: .utf8))
        let pending = try await client.startLogin(
            LoginRequest(
                redirectURI: try Glewlwyd.redirectURI,
                requestObject: RequestObject.Configuration(signature: .signed(key: key, algorithm: .es256))))
        let query = try #require(URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems).map(\.name)
        #expect(Set(query) == ["client_id", "request", "response_type", "scope"])
        let callback = try await Glewlwyd.login(pending.url, scope: "openid")
        let login = try await client.finishLogin(pending, callback: .url(callback))
        #expect(login.tokens.tokenType.lowercased() == "dpop" && login.idToken.subject?.isEmpty == false)
    }

    /// glewlwyd refuses any DPoP `iat` after its `time()` (no future allowance by default), and
    /// `time()` reads the kernel's coarse clock, a few milliseconds behind the precise one: proofs
    /// dated by the whole second of the clock were refused now and then ("Invalid DPoP" at
    /// UserInfo, once in a CI run). A clock 0.9 s ahead makes that nearly every request; the
    /// client's one-second backdating (`AssertionTimes`) must absorb it on every one.
    @Test("OIDCClient: DPoP proofs from a clock 0.9 s ahead of glewlwyd's are accepted at PAR, token and UserInfo (iat one second behind)")
    func dpopClockAhead() async throws {
        let dpop = DPoPBinding(key: try DPoPKey.generate(), clock: { Date().addingTimeInterval(0.9) })
        let client = try await oidcClient(dpop: dpop)
        let pending = try await client.startLogin(LoginRequest(redirectURI: try Glewlwyd.redirectURI, push: .always))
        let login = try await client.finishLogin(pending, callback: .url(try Glewlwyd.login(pending.url, scope: "openid")))
        for _ in 0..<6 {
            #expect(try await client.userInfo(login.tokens)["sub"]?.stringValue == login.idToken.subject)
        }
    }

    /// glewlwyd sends RFC 9207 `iss` (`oauth-as-iss-id`) without advertising it; a client that requires it
    /// itself runs with the profile switched on, every rule checked before the push.
    @Test("OIDCClient with the FAPI 2.0 profile on (iss required by the client): PAR login, iss checked, DPoP UserInfo")
    func oidcClientFAPIProfileLogin() async throws {
        let client = try await oidcClient(dpop: DPoPBinding(key: try DPoPKey.generate()), fapi2Profile: true, requireIssuerParameter: true)
        let pending = try await client.startLogin(LoginRequest(redirectURI: try Glewlwyd.redirectURI, push: .always))
        let callback = try await Glewlwyd.login(pending.url, scope: "openid")
        let query = try #require(URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(query.first { $0.name == "iss" }?.value == client.issuer)
        // The same callback without its iss is refused: the client's requirement holds.
        var stripped = try #require(URLComponents(url: callback, resolvingAgainstBaseURL: false))
        stripped.queryItems = query.filter { $0.name != "iss" }
        let refused = await #expect(throws: OIDCError.self) {
            _ = try await client.finishLogin(pending, callback: .url(try #require(stripped.url)))
        }
        #expect(refused?.code == .responseIssuerMismatch)
        let login = try await client.finishLogin(pending, callback: .url(callback))
        #expect(login.tokens.tokenType.lowercased() == "dpop")
        #expect(try await client.userInfo(login.tokens)["sub"]?.stringValue == login.idToken.subject)
    }

    @Test(
        "OIDCClient: the FAPI 2.0 profile refuses glewlwyd's metadata (no authorization_response_iss_parameter_supported) when the client is made, before any login request"
    )
    func oidcClientProfileRefusesGlewlwyd() async throws {
        let error = await #expect(throws: OIDCError.self) {
            _ = try await oidcClient(dpop: DPoPBinding(key: try DPoPKey.generate()), fapi2Profile: true)
        }
        #expect(error?.code == .fapiIssuerParameterRequired)
    }
}
