import Foundation
import JOSE
import Testing

@testable import OIDC

/// The one caller of the authorization server: every endpoint through one client, its settings given at creation.
@Suite("TokenClient: one caller for token, PAR, revocation and UserInfo, with the observer and DPoP given at creation")
struct OneTokenClientTests {
    static let issuer = "https://as.example"
    static let token = URL(string: "https://as.example/token")!

    /// Answers each endpoint by path: tokens, a PAR reference, an empty revocation answer, UserInfo claims.
    static func provider() -> CannedTransport {
        CannedTransport { request in
            let body: String
            var status = 200
            switch request.url.path {
            case "/token": body = #"{"access_token":"AT","token_type":"DPoP","expires_in":60}"#
            case "/par": body = #"{"request_uri":"urn:ietf:params:oauth:request_uri:r","expires_in":60}"#; status = 201
            case "/revoke": body = "{}"
            default: body = #"{"sub":"alice"}"#
            }
            return TransportResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
        }
    }

    @Test("one event per call, of the call's own kind: a revocation or UserInfo call is never also a provider call")
    func oneEventPerCall() async throws {
        let observer = RecordingObserver()
        let transport = Self.provider()
        let client = try TokenClient(
            tokenEndpoint: Self.token, issuer: Self.issuer, authentication: .clientSecretBasic(clientID: "app", secret: "s"),
            transport: transport, dpop: DPoPBinding(key: try DPoPKey.generate()), observer: observer)
        _ = try await client.clientCredentials(scope: "api")
        _ = try await client.pushAuthorizationRequest([("response_type", "code")], endpoint: try #require(URL(string: "https://as.example/par")))
        try await client.revoke("AT", endpoint: try #require(URL(string: "https://as.example/revoke")))
        _ = try await client.userInfo(accessToken: "AT", endpoint: try #require(URL(string: "https://as.example/userinfo")))
        #expect(observer.events.map(\.kind) == [.tokenRequest, .providerCall, .revocation, .userInfo])
        #expect(observer.events[0].grantType == "client_credentials")
        // The binding given at creation proves the token request and UserInfo, not the push or the revocation.
        #expect(transport.requests.map { $0.headers["DPoP"] != nil } == [true, false, false, true])
        #expect(transport.requests[3].headers["Authorization"] == "DPoP AT")
    }

    @Test("the timeout given at creation is every request's; the client authentication is on every form POST")
    func settingsAtCreation() async throws {
        let transport = Self.provider()
        let client = try TokenClient(
            tokenEndpoint: Self.token, issuer: Self.issuer, authentication: .clientSecretPost(clientID: "app", secret: "s"),
            transport: transport, timeout: 7)
        _ = try await client.refresh("RT")
        try await client.revoke("RT", endpoint: try #require(URL(string: "https://as.example/revoke")))
        #expect(transport.requests.count == 2)
        #expect(transport.requests.allSatisfy { $0.timeout == 7 })
        #expect(transport.requests.allSatisfy { $0.bodyText.contains("client_secret=s") })
    }
}
