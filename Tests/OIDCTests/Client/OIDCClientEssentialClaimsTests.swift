import Foundation
import JOSE
import Testing

@testable import OIDC

/// Essential claims other than `acr`/`auth_time`: not enforced by default (OpenID Connect Core §5.5.1 lets a
/// provider omit them), refused by name under `essentialClaims = .requireEvery`.
@Suite("OIDCClient essential claims")
struct OIDCClientEssentialClaimsTests {
    typealias T = OIDCClientTests

    @Test("an essential cmiInstanceId missing: accepted by default, missing_essential_claim under .requireEvery, accepted when present")
    func requireEvery() async throws {
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        for rule in [OIDCClient.Configuration.EssentialClaims.acrAndAuthTimeOnly, .requireEvery] {
            configuration.essentialClaims = rule
            let (client, transport) = try T.client(configuration: configuration)
            var request = LoginRequest(redirectURI: T.redirectURI)
            request.claims = ClaimsRequest(idToken: ["cmiInstanceId": .essential, "nickname": .init()])
            let pending = try await client.startLogin(request)
            let nonce = JSONValue.string(try #require(pending.nonce).value)
            T.tokens(transport, idToken: try T.idToken([("nonce", nonce), ("cmiInstanceId", .null)]))
            if rule == .requireEvery {
                do {
                    _ = try await client.finishLogin(pending, callback: .url(T.callback(pending)))
                    Issue.record("an ID Token without the essential claim was accepted under .requireEvery")
                } catch let error as OIDCError {
                    #expect(error.code == .missingEssentialClaim)
                    #expect(error.reason.contains("cmiInstanceId") && !error.reason.contains("nickname"))
                }
            } else {
                _ = try await client.finishLogin(pending, callback: .url(T.callback(pending)))
            }
            T.tokens(transport, idToken: try T.idToken([("nonce", nonce), ("cmiInstanceId", "cmi-42")]))
            let login = try await client.finishLogin(pending, callback: .url(T.callback(pending)))
            #expect(try login.idToken.claims.string("cmiInstanceId") == "cmi-42")
        }
    }

    @Test("the essential names of a request's id_token member")
    func essentialNames() throws {
        var request = try OAuthRequest(clientID: "c", redirectURI: T.redirectURI)
        request.claims = ClaimsRequest(
            idToken: ["a": .essential, "b": .init(), "acr": .values(["x"], essential: true)],
            userinfo: ["c": .essential])
        #expect(IDTokenExpectations.essentialIDTokenClaims(of: request) == ["a", "acr"])
    }

    @Test("clientCredentialsTokenSource: the client's own authentication and endpoint, one request for concurrent callers")
    func clientCredentialsSource() async throws {
        let (client, transport) = try T.client()
        transport.json(T.tokenURL, #"{"access_token":"svc-1","token_type":"Bearer","expires_in":300}"#)
        let source = client.clientCredentialsTokenSource(scope: "api.read")
        async let first = source.token()
        async let second = source.token()
        #expect(try await first.accessToken == "svc-1")
        #expect(try await second.accessToken == "svc-1")
        #expect(transport.calls(T.tokenURL) == 1)
    }
}
