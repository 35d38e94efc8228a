import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCResourceServer
import OIDCSession
import TestProcesses
import Testing

/// A scripted provider (Tests/Support/profile_provider.py) on 127.0.0.1 behaving as one large provider's
/// documentation says; started per test, stopped when the test ends (its stdin closes).
final class ScriptedProfileProvider {
    let child: StartedChild
    let port: String
    var base: String { "http://127.0.0.1:\(port)" }

    init(_ profile: String) async throws {
        child = try StartedChild(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", Provider.repository.appendingPathComponent("Tests/Support/profile_provider.py").path,
                "--port", ProcessInfo.processInfo.environment["PROFILE_PROVIDER_PORT"] ?? "0", "--profile", profile,
                "--keys", Provider.repository.appendingPathComponent("Keys").path,
            ])
        port = try await child.firstLine(limit: 8)
        guard UInt16(port) != nil else { stop(); throw OIDCError(.transport, "the scripted \(profile) provider did not start") }
    }

    func stop() { child.stop() }
}

@Suite(
    "Provider profiles against scripted providers", .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct ProviderProfileTests {
    static let contoso = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let fabrikam = "0b1a2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    static let secret = ClientAuthentication.clientSecretBasic(clientID: "app", secret: "app-secret")
    static let redirect = URL(string: "http://127.0.0.1:1/callback")!

    func withProvider(_ profile: String, _ body: (ScriptedProfileProvider) async throws -> Void) async throws {
        let provider = try await ScriptedProfileProvider(profile)
        defer { provider.stop() }
        try await body(provider)
    }

    func client(_ issuer: String, _ profile: ProviderProfile?, authentication: ClientAuthentication = secret) async throws -> OIDCClient {
        var configuration = OIDCClient.Configuration()
        configuration.profile = profile
        return try await OIDCClient.discover(
            issuer: issuer, authentication: authentication, transport: URLSessionTransport(),
            configuration: configuration)
    }

    /// A browser's part of a login: the authorization request, then the redirect (query) or the form it posts.
    func login(
        _ client: OIDCClient, as user: String, formPost: Bool = false, scopes: [String] = ["openid", "email"],
        configure: (inout LoginRequest) -> Void = { _ in }
    ) async throws -> LoginResult {
        var request = LoginRequest(redirectURI: Self.redirect, scopes: scopes, responseMode: formPost ? .formPost : .query)
        request.loginHint = user
        configure(&request)
        let pending = try await client.startLogin(request)
        let answer = try await URLSessionTransport().send(TransportRequest(url: pending.url, followsRedirects: false))
        if answer.status == 302, let location = answer.headers["Location"], let url = URL(string: location) {
            return try await client.finishLogin(pending, callback: .url(url))
        }
        try #require(answer.status == 200, "the authorization endpoint answered \(answer.status)")
        // form_post: the page's hidden inputs, posted as the browser would.
        let html = String(decoding: answer.body, as: UTF8.self)
        var fields: [String] = []
        for input in html.components(separatedBy: "<input ").dropFirst() {
            func attribute(_ name: String) -> String? {
                guard let start = input.range(of: "\(name)=\"") else { return nil }
                let rest = input[start.upperBound...]
                return rest.firstIndex(of: "\"").map { String(rest[..<$0]).replacingOccurrences(of: "&quot;", with: "\"") }
            }
            guard let name = attribute("name"), let value = attribute("value") else { continue }
            fields.append(FormURLEncoding.encode(name) + "=" + FormURLEncoding.encode(value))
        }
        return try await client.finishLogin(pending, callback: .formPost(fields.joined(separator: "&")))
    }

    // MARK: Entra ID

    @Test("Entra common: the {tenantid} template is accepted at discovery only under the profile; iss checked against tid")
    func entraCommon() async throws {
        try await withProvider("entra") { idp in
            let issuer = idp.base + "/common/v2.0"
            await expectOIDCError(.discoveryIssuerMismatch) { _ = try await client(issuer, nil) }
            let any = try await client(issuer, .entra(.anyTenant))
            #expect(any.issuer == issuer)
            let alice = try await login(any, as: "alice@contoso")
            #expect(alice.idToken.issuer == "\(idp.base)/\(Self.contoso)/v2.0")
            _ = try await login(any, as: "bob@fabrikam")
            // iss naming another tenant than tid
            await expectOIDCError(.issuerMismatch) { _ = try await login(any, as: "forged@contoso") }
            // The same tokens without the profile: the tenant's iss is not the configured issuer.
            let strict = try OIDCClient(metadata: any.metadata, authentication: Self.secret, transport: URLSessionTransport())
            await expectOIDCError(.issuerMismatch) { _ = try await login(strict, as: "alice@contoso") }
            // The allow-list (recommended)
            let listed = try await client(issuer, .entra(try .allowList([Self.contoso.uppercased()])))
            _ = try await login(listed, as: "alice@contoso")
            await expectOIDCError(.tenantNotAllowed) { _ = try await login(listed, as: "bob@fabrikam") }
        }
    }

    @Test("Entra common configured with its full discovery URL: the issuer is the URL without the suffix, the {tenantid} rule holds")
    func entraFullDiscoveryURL() async throws {
        try await withProvider("entra") { idp in
            let issuer = idp.base + "/common/v2.0"
            let client = try await client(issuer + "/.well-known/openid-configuration", .entra(.anyTenant))
            #expect(client.issuer == issuer)
            #expect(try await login(client, as: "alice@contoso").idToken.issuer == "\(idp.base)/\(Self.contoso)/v2.0")
            await expectOIDCError(.issuerMismatch) { _ = try await login(client, as: "forged@contoso") }
            await expectOIDCError(.discoveryIssuerMismatch) { _ = try await self.client(issuer + "/.well-known/openid-configuration", nil) }
        }
    }

    @Test("Entra organizations refuses the consumer tenant; consumers accepts only it; a single tenant stays exact")
    func entraAliases() async throws {
        try await withProvider("entra") { idp in
            let organizations = try await client(idp.base + "/organizations/v2.0", .entra(.anyTenant))
            _ = try await login(organizations, as: "alice@contoso")
            await expectOIDCError(.tenantNotAllowed) { _ = try await login(organizations, as: "carol@outlook") }
            let consumers = try await client(idp.base + "/consumers/v2.0", .entra(.anyTenant))
            #expect(try await login(consumers, as: "carol@outlook").idToken.issuer == "\(idp.base)/\(EntraTenants.consumerTenant)/v2.0")
            await expectOIDCError(.tenantNotAllowed) { _ = try await login(consumers, as: "alice@contoso") }
            let single = try await client("\(idp.base)/\(Self.contoso)/v2.0", .entra(.anyTenant))
            _ = try await login(single, as: "alice@contoso")
            await expectOIDCError(.issuerMismatch) { _ = try await login(single, as: "bob@fabrikam") }
        }
    }

    @Test("Entra: a Microsoft Graph access token (nonce in its header) is refused as not verifiable by third parties")
    func graphToken() async throws {
        try await withProvider("entra") { idp in
            let answer = try await URLSessionTransport().send(TransportRequest(url: URL(string: idp.base + "/common/graph-token")!))
            let token = try #require(try JSONParser.parseObject(answer.body, what: "answer")["access_token"]?.stringValue)
            let keys = try JWKSet(
                jsonBytes: try await URLSessionTransport().send(
                    TransportRequest(url: URL(string: idp.base + "/common/discovery/v2.0/keys")!)
                ).body)
            let validator = AccessTokenValidator(issuer: "\(idp.base)/\(Self.contoso)/v2.0", audience: "api://orders", keys: .keySet(keys))
            await expectOIDCError(.unverifiableAccessToken) { _ = try await validator.validate(bearerToken: token) }
            await expectOIDCError(.unverifiableAccessToken) {  // the request call names it the same way
                _ = try await validator.validate(
                    method: "GET", url: URL(string: "https://orders.example/v1")!,
                    headers: ["Authorization": "Bearer " + token])
            }
            let entra = try await client(idp.base + "/common/v2.0", .entra(.anyTenant))
            await expectOIDCError(.unverifiableAccessToken) {
                _ = try await entra.validator.validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
            }
        }
    }

    @Test("Entra resource server: v2.0 access tokens for your API under the profile (per-tenant iss, allow-list, azp, scp)")
    func entraResourceServer() async throws {
        try await withProvider("entra") { idp in
            let issuer = idp.base + "/common/v2.0"
            let api = "6e74172b-be56-4843-9ff4-e66a39bb12e3"
            let entra = try await client(issuer, .entra(.anyTenant))
            func tokens(_ user: String) async throws -> TokenResponse {
                try await login(entra, as: user) { $0.scopes = ["openid", "api://orders/read"] }.tokens
            }
            let keys = try JWKSet(
                jsonBytes: try await URLSessionTransport().send(
                    TransportRequest(url: URL(string: idp.base + "/common/discovery/v2.0/keys")!)
                ).body)
            let validator = AccessTokenValidator(
                issuer: issuer, audience: api, keys: .keySet(keys),
                profile: .entra(try .allowList([Self.contoso])))
            let alice = try await tokens("alice@contoso")
            let accepted = try await validator.validate(bearerToken: alice.accessToken, requiredScopes: ["read"])
            #expect(accepted.clientID == "app" && accepted.issuer == "\(idp.base)/\(Self.contoso)/v2.0")
            // The same token without the profile: not at+jwt, and iss is the tenant's.
            let strict = AccessTokenValidator(issuer: issuer, audience: api, keys: .keySet(keys))
            await expectOIDCError(.unexpectedTokenType) { _ = try await strict.validate(bearerToken: alice.accessToken) }
            await expectOIDCError(.tenantNotAllowed) { _ = try await validator.validate(bearerToken: try await tokens("bob@fabrikam").accessToken) }
            let anyTenant = AccessTokenValidator(issuer: issuer, audience: api, keys: .keySet(keys), profile: .entra(.anyTenant))
            await expectOIDCError(.issuerMismatch) { _ = try await anyTenant.validate(bearerToken: try await tokens("forgedapi@contoso").accessToken) }
            // Its ID Token (no scp, no roles) is not an access token; a token for another API is refused by aud.
            let sameApp = AccessTokenValidator(issuer: issuer, audience: "app", keys: .keySet(keys), profile: .entra(.anyTenant))
            await expectOIDCError(.unexpectedTokenType) { _ = try await sameApp.validate(bearerToken: try #require(alice.idToken)) }
            let otherAPI = AccessTokenValidator(issuer: issuer, audience: "api://billing", keys: .keySet(keys), profile: .entra(.anyTenant))
            await expectOIDCError(.audienceMismatch) { _ = try await otherAPI.validate(bearerToken: alice.accessToken) }
        }
    }

    // MARK: Google

    @Test("Google: a scheme-less iss only under the profile; the hd allow-list refuses other domains and consumer accounts")
    func google() async throws {
        try await withProvider("google") { idp in
            let strict = try await client(idp.base, nil)
            await expectOIDCError(.issuerMismatch) { _ = try await login(strict, as: "alice@example.com") }
            _ = try await login(strict, as: "bob@gmail.com")  // iss with its scheme: fine without a profile
            let any = try await client(idp.base, .google(.anyHostedDomain))
            #expect(try await login(any, as: "alice@example.com").idToken.issuer == "127.0.0.1:\(idp.port)")
            _ = try await login(any, as: "bob@gmail.com")
            let domains = try await client(idp.base, .google(try .allowList(["Example.com"])))
            _ = try await login(domains, as: "alice@example.com")
            await expectOIDCError(.hostedDomainNotAllowed) { _ = try await login(domains, as: "bob@gmail.com") }
            await expectOIDCError(.hostedDomainNotAllowed) { _ = try await login(domains, as: "eve@other.example") }
        }
    }

    // MARK: Apple

    static func appleSecret(audience: String, team: String = "TEAM123ABC") throws -> AppleClientSecret {
        let key = try JWK(json: String(contentsOf: Provider.repository.appendingPathComponent("Keys/p256.jwk"), encoding: .utf8))
        return try AppleClientSecret(teamID: team, keyID: "KEY123ABCD", clientID: "app", key: key, audience: audience)
    }

    @Test("Apple: ES256 client_secret checked by the token endpoint, form_post with user on the first login, string booleans")
    func apple() async throws {
        try await withProvider("apple") { idp in
            let authentication = ClientAuthentication.appleClientSecret(try Self.appleSecret(audience: idp.base))
            let apple = try await client(idp.base, .apple, authentication: authentication)
            let first = try await login(apple, as: "alice@privaterelay", formPost: true)
            #expect(first.idToken.emailVerified == true)
            #expect(try first.idToken.isPrivateEmail == true)
            let user = try #require(try first.formPostUser)
            #expect(user.firstName == "Alice" && user.lastName == "Appleseed" && user.email == "alice@privaterelay")
            #expect(try await login(apple, as: "alice@privaterelay", formPost: true).formPostUser == nil)  // first login only
            // The same tokens without the profile: "true" is not a JSON boolean.
            let strict = try await client(idp.base, nil, authentication: authentication)
            await expectOIDCError(.claimTypeMismatch) { _ = try await login(strict, as: "alice@privaterelay", formPost: true) }
            let wrongTeam = try await client(idp.base, .apple, authentication: .appleClientSecret(try Self.appleSecret(audience: idp.base, team: "OTHERTEAM1")))
            await expectOIDCError(.oauthError, oauth: .invalidClient) { _ = try await login(wrongTeam, as: "alice@privaterelay", formPost: true) }
        }
    }

    @Test("Apple client_secret: cached, renewed before expiry, at most six months, ids in no secret-bearing text")
    func appleSecretCache() throws {
        let secret = try Self.appleSecret(audience: AppleClientSecret.appleIssuer)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try secret.secret(now: start)
        #expect(try secret.secret(now: start.addingTimeInterval(3600)) == first)
        let renewed = try secret.secret(now: start.addingTimeInterval(secret.lifetime - secret.renewalMargin + 1))
        #expect(renewed != first)
        let claims = try JSONParser.parseObject(try Base64URL.decode(String(first.split(separator: ".")[1])), what: "claims")
        #expect(claims["iss"]?.stringValue == "TEAM123ABC" && claims["sub"]?.stringValue == "app")
        #expect(claims["aud"]?.stringValue == "https://appleid.apple.com")
        let header = try JSONParser.parseObject(try Base64URL.decode(String(first.split(separator: ".")[0])), what: "header")
        #expect(header["kid"]?.stringValue == "KEY123ABCD" && header["alg"]?.stringValue == "ES256")
        let key = try JWK(json: String(contentsOf: Provider.repository.appendingPathComponent("Keys/p256.jwk"), encoding: .utf8))
        #expect(throws: OIDCError.self) {
            _ = try AppleClientSecret(teamID: "T", keyID: "K", clientID: "c", key: key, lifetime: AppleClientSecret.maximumLifetime + 1)
        }
        #expect(!"\(secret)".contains(first) && !"\(ClientAuthentication.appleClientSecret(secret))".contains(first))
    }

    // MARK: Keycloak

    @Test("Keycloak: login with use:enc keys in the JWK Set; the access-token policy's audience rule (aud or allowed azp)")
    func keycloak() async throws {
        try await withProvider("keycloak") { idp in
            let issuer = idp.base + "/realms/demo"
            let keycloakClient = try await client(issuer, .keycloak)
            let login = try await login(keycloakClient, as: "alice")  // the enc key listed first is skipped
            // A token signed with the encryption key's private half, naming it: the use:enc key never verifies.
            let encKey = try JWK(json: String(contentsOf: Provider.repository.appendingPathComponent("Keys/rsa3072.jwk"), encoding: .utf8))
            let now = Int64(Date().timeIntervalSince1970)
            let byEncKey = try JWT.sign(
                ["iss": .string(issuer), "aud": "app", "sub": "sub-alice", "iat": .integer(now), "exp": .integer(now + 300)],
                key: encKey, algorithm: .ps384, header: ["typ": "JWT", "kid": "enc-1"])
            do {
                // Only `use` stands between this key and verification: its `alg` (RSA-OAEP) is taken off.
                var document = try JSONParser.parseObject(
                    try await URLSessionTransport().send(TransportRequest(url: URL(string: issuer + "/keys")!)).body,
                    what: "keys")
                let entries = try #require(document["keys"]?.arrayValue).map { entry -> JSONValue in
                    guard var key = entry.objectValue, key["use"]?.stringValue == "enc" else { return entry }
                    key["alg"] = nil
                    return .object(key)
                }
                document["keys"] = .array(entries)
                let published = try JWKSet(json: JSONValue.object(document).jsonString())
                let validator = IDTokenValidator(
                    configuration: IDTokenValidator.Configuration(issuer: issuer, clientID: "app", allowedAlgorithms: [.rs256, .ps384]),
                    keys: .keySet(published))
                _ = try await validator.validate(byEncKey, expecting: IDTokenExpectations(nonce: .noNonceSent))
                Issue.record("a token verified with a use:enc key")
            } catch let error as OIDCError {
                #expect([.unusableSigningKey, .signingKeyNotFound].contains(error.code), "\(error)")
            }
            let keys = try JWKSet(jsonBytes: try await URLSessionTransport().send(TransportRequest(url: URL(string: issuer + "/keys")!)).body)
            let token = login.tokens.accessToken
            let rfc9068 = AccessTokenValidator(issuer: issuer, audience: "orders-api", keys: .keySet(keys))
            await expectOIDCError(.unexpectedTokenType) { _ = try await rfc9068.validate(bearerToken: token) }
            let keycloak = AccessTokenValidator(
                issuer: issuer, audience: "orders-api", keys: .keySet(keys),
                profile: .keycloak(allowedClients: ["app"]))
            let accepted = try await keycloak.validate(bearerToken: token)
            #expect(accepted.clientID == "app" && accepted.subject == "sub-alice")
            let byAudience = AccessTokenValidator(issuer: issuer, audience: "account", keys: .keySet(keys), profile: .keycloak(allowedClients: []))
            _ = try await byAudience.validate(bearerToken: token)
            let otherClients = AccessTokenValidator(
                issuer: issuer, audience: "orders-api", keys: .keySet(keys),
                profile: .keycloak(allowedClients: ["billing"]))
            await expectOIDCError(.audienceMismatch) { _ = try await otherClients.validate(bearerToken: token) }
            let foreign = try await self.login(keycloakClient, as: "foreign").tokens.accessToken  // azp other-app, aud other-api
            await expectOIDCError(.audienceMismatch) { _ = try await keycloak.validate(bearerToken: foreign) }
            // Its ID Token (payload typ ID) is no access token, even for an allowed azp.
            await expectOIDCError(.unexpectedTokenType) { _ = try await keycloak.validate(bearerToken: try #require(login.tokens.idToken)) }
        }
    }

    // MARK: Okta and Auth0

    @Test("Okta: a custom authorization server is an exact issuer; org-level access tokens need introspection")
    func okta() async throws {
        try await withProvider("okta") { idp in
            _ = try await login(try await client(idp.base + "/oauth2/default", .okta), as: "alice")
            #expect(!ProviderProfile.okta.accessTokensNeedIntrospection(issuer: idp.base + "/oauth2/default"))
            #expect(ProviderProfile.okta.accessTokensNeedIntrospection(issuer: "https://example.okta.com"))
            #expect(!ProviderProfile.auth0.accessTokensNeedIntrospection(issuer: "https://example.okta.com"))
        }
    }

    @Test("Auth0: issuer with a trailing slash compared exactly, ISO 8601 updated_at only under the profile, audience parameter")
    func auth0() async throws {
        try await withProvider("auth0") { idp in
            let issuer = idp.base + "/"
            await expectOIDCError(.claimTypeMismatch) { _ = try await login(try await client(issuer, nil), as: "alice") }
            let auth0 = try await client(issuer, .auth0)
            let result = try await login(auth0, as: "alice") { $0.additionalParameters["audience"] = "https://api.example" }
            #expect(result.idToken.issuer == issuer)
            #expect(result.idToken.updatedAt == Date(timeIntervalSince1970: 1_714_558_830.123))
            let payload = try #require(result.tokens.accessToken.split(separator: ".").dropFirst().first)
            let claims = try JSONParser.parseObject(try Base64URL.decode(String(payload)), what: "claims")
            #expect(claims["aud"]?.arrayValue?.contains(.string("https://api.example")) == true)
            await expectOIDCError(.discoveryIssuerMismatch) { _ = try await self.client(idp.base, .auth0) }  // no slash: not the issuer
        }
    }

    @Test("Auth0: the ISO 8601 updated_at is read by the one profile rule on every path: login, UserInfo, refresh (new and kept ID Token), a session")
    func auth0EveryPath() async throws {
        try await withProvider("auth0") { idp in
            let auth0 = try await client(idp.base + "/", .auth0)
            let login = try await login(auth0, as: "alice", scopes: ["openid", "profile", "email", "offline_access"])
            let updatedAt = Date(timeIntervalSince1970: 1_714_558_830.123)
            #expect(login.idToken.updatedAt == updatedAt)
            // UserInfo: its sub is compared with the kept ID Token's, read under the profile.
            let userInfo = try await auth0.userInfo(login.tokens)
            #expect(userInfo["sub"]?.stringValue == login.idToken.subject && userInfo["updated_at"]?.stringValue == "2024-05-01T10:20:30.123Z")
            // Refresh: the new ID Token is validated and compared (§12.2) with the kept one, both read under the profile.
            let refreshed = try await auth0.refresh(login.tokens)
            let fresh = try JSONParser.parseObject(try CompactJWS(try #require(refreshed.idToken)).payload, what: "claims")
            #expect(fresh["updated_at"]?.stringValue == "2024-05-01T10:20:30.123Z" && fresh["sub"]?.stringValue == login.idToken.subject)
            #expect(refreshed.refreshToken != login.tokens.refreshToken)
            // UserInfo after the refresh, against the refreshed ID Token.
            #expect(try await auth0.userInfo(refreshed)["sub"]?.stringValue == login.idToken.subject)
            // A session (the client as refresher, its validated policy): a refused access token is refreshed and retried.
            var stale = refreshed
            stale.accessToken = "an-access-token-the-provider-refuses"
            let userinfoURL = try #require(auth0.metadata.userinfoEndpoint)
            let session = try await auth0.session(tokens: stale, configuration: .init(allowedOrigins: [userinfoURL]))
            #expect(try await session.send(TransportRequest(url: userinfoURL)).status == 200)
            #expect(await session.refreshes == 1)
            // Without the profile, the same tokens are refused by the standard reading, named.
            await expectOIDCError(.claimTypeMismatch) { _ = try await self.client(idp.base + "/", nil).userInfo(login.tokens) }
        }
    }
}
