import Foundation
import JOSE
import OIDC
import OIDCNetworking
import Testing

@Suite("CI runs the real-provider suite")
struct ProviderRequiredUnderCI {
    @Test("under CI=true the test provider must be running (IDP_ISSUER set by Tests/run.sh)")
    func providerPresentUnderCI() {
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            #expect(Provider.isRunning, "IDP_ISSUER is not set: the integration tests would be skipped")
        }
    }
}

/// One serialized suite: django-oauth-toolkit derives a refreshed ID Token's
/// `auth_time` from the user's latest login. The library accepts an `auth_time` that
/// moves forward (`RefreshedIDTokenPolicy.validate(with:)`, see `Relogin`); the flow
/// test's strict comparison and the timing of `Relogin` still need logins in order.
@Suite("Real provider", .enabled(if: Provider.isRunning), .serialized)
struct RealProviderTests {}

extension RealProviderTests {
    @Suite("Full login against the real provider", .serialized)
    struct Flow {
        static let claims = ClaimsRequest(idToken: ["acr": .essential, "cmiInstanceId": .values(["instance-1"])], userinfo: ["email": .voluntary])

        @Test("discovery → PKCE login → exchange → ID Token → userinfo → refresh → revoke", arguments: ["basic", "post"])
        func fullFlow(_ method: String) async throws {
            let clientID = method == "basic" ? "client-basic" : "client-post"
            let secret = method == "basic" ? "secret-basic" : "secret-post"
            let authentication: ClientAuthentication =
                method == "basic"
                ? .clientSecretBasic(clientID: clientID, secret: secret) : .clientSecretPost(clientID: clientID, secret: secret)
            let (pending, code) = try await Provider.authorize(clientID: clientID, claims: Self.claims)
            // The provider received the claims request intact: what it stored with the code is the same JSON.
            let stored = try await JSONParser.parse(try Provider.storedClaims(forCode: code))
            #expect(stored == .object(Self.claims.jsonObject), "the provider stored \(stored.jsonString())")
            let (client, metadata) = try await Provider.client(authentication)

            let tokens = try await client.exchangeCode(code, redirectURI: Provider.redirectURI, codeVerifier: pending.codeVerifier?.value)
            #expect(tokens.isBearer)
            #expect(tokens.expiresAt != nil)
            let validator = try await IDTokenValidator.discover(
                issuer: metadata.issuer, clientID: clientID,
                discovery: Provider.discovery, keyCaches: Provider.keyCaches)
            let idToken = try await validator.validate(
                try #require(tokens.idToken),
                expecting: IDTokenExpectations(nonce: ExpectedNonce(pending.nonce)))
            #expect(idToken.issuer == metadata.issuer)
            #expect(idToken.email == "alice@example.com")

            let userInfo = try await client.userInfo(accessToken: tokens.accessToken, endpoint: try #require(metadata.userinfoEndpoint))
            try TokenClient.checkUserInfoSubject(userInfo, idTokenSubject: idToken.subject)
            await expectOIDCError(.userInfoSubjectMismatch) { try TokenClient.checkUserInfoSubject(userInfo, idTokenSubject: "someone-else") }

            let oldRefresh = try #require(tokens.refreshToken)
            let refreshed = try await client.refresh(oldRefresh)
            #expect(refreshed.accessToken != tokens.accessToken)
            let newIDToken = try await validator.validate(try #require(refreshed.idToken), expecting: IDTokenExpectations(nonce: .noNonceSent))
            try newIDToken.checkIsRefresh(of: idToken, authTime: .unchanged)  // no other login of alice ran meanwhile
            // The provider rotates refresh tokens: the old one is now refused.
            await expectOIDCError(.oauthError, oauth: .invalidGrant, status: 400) { _ = try await client.refresh(oldRefresh) }

            let newRefresh = try #require(refreshed.refreshToken)
            try await client.revoke(newRefresh, hint: "refresh_token", endpoint: try Provider.revocationEndpoint(metadata))
            await expectOIDCError(.oauthError, oauth: .invalidGrant) { _ = try await client.refresh(newRefresh) }
        }

        @Test("a public client with PKCE and no secret")
        func publicClient() async throws {
            let (pending, code) = try await Provider.authorize(clientID: "client-public")
            let (client, _) = try await Provider.client(.none(clientID: "client-public"))
            let tokens = try await client.exchangeCode(code, redirectURI: Provider.redirectURI, codeVerifier: pending.codeVerifier?.value)
            #expect(!tokens.accessToken.isEmpty)
        }
    }

    @Suite("Provider errors, provoked for real", .serialized)
    struct Errors {
        @Test("a reused code is invalid_grant")
        func reusedCode() async throws {
            let (pending, code) = try await Provider.authorize(clientID: "client-basic")
            let (client, _) = try await Provider.client(.clientSecretBasic(clientID: "client-basic", secret: "secret-basic"))
            _ = try await client.exchangeCode(code, redirectURI: Provider.redirectURI, codeVerifier: pending.codeVerifier?.value)
            await expectOIDCError(.oauthError, oauth: .invalidGrant, status: 400) {
                _ = try await client.exchangeCode(code, redirectURI: Provider.redirectURI, codeVerifier: pending.codeVerifier?.value)
            }
        }

        @Test("a wrong PKCE verifier is invalid_grant; a missing one is invalid_request")
        func pkce() async throws {
            let (pending, code) = try await Provider.authorize(clientID: "client-basic")
            let (client, _) = try await Provider.client(.clientSecretBasic(clientID: "client-basic", secret: "secret-basic"))
            await expectOIDCError(.oauthError, oauth: .invalidRequest, status: 400) {
                _ = try await client.exchangeCode(code, redirectURI: Provider.redirectURI, codeVerifier: nil)
            }
            await expectOIDCError(.oauthError, oauth: .invalidGrant, status: 400) {
                _ = try await client.exchangeCode(
                    code, redirectURI: Provider.redirectURI,
                    codeVerifier: String(repeating: "x", count: 43))
            }
            _ = pending
        }

        @Test("a wrong client secret is invalid_client with HTTP 401", arguments: ["basic", "post"])
        func wrongSecret(_ method: String) async throws {
            let (pending, code) = try await Provider.authorize(clientID: "client-basic")
            let authentication: ClientAuthentication =
                method == "basic"
                ? .clientSecretBasic(clientID: "client-basic", secret: "wrong") : .clientSecretPost(clientID: "client-basic", secret: "wrong")
            let (client, _) = try await Provider.client(authentication)
            await expectOIDCError(.oauthError, oauth: .invalidClient, status: 401) {
                _ = try await client.exchangeCode(code, redirectURI: Provider.redirectURI, codeVerifier: pending.codeVerifier?.value)
            }
        }

        @Test("a revoked access token is refused at userinfo with 401 invalid_token")
        func revokedAccessToken() async throws {
            let (pending, code) = try await Provider.authorize(clientID: "client-basic")
            let (client, metadata) = try await Provider.client(.clientSecretBasic(clientID: "client-basic", secret: "secret-basic"))
            let tokens = try await client.exchangeCode(code, redirectURI: Provider.redirectURI, codeVerifier: pending.codeVerifier?.value)
            let userinfo = try #require(metadata.userinfoEndpoint)
            _ = try await client.userInfo(accessToken: tokens.accessToken, endpoint: userinfo)
            try await client.revoke(tokens.accessToken, hint: "access_token", endpoint: try Provider.revocationEndpoint(metadata))
            await expectOIDCError(.oauthError, oauth: .invalidToken, status: 401) {
                _ = try await client.userInfo(accessToken: tokens.accessToken, endpoint: userinfo)
            }
        }
    }
}
