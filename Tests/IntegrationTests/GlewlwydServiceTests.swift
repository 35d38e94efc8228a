import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCResourceServer
import Testing

extension GlewlwydSerial {
    /// Machine-to-machine grants and the receiving side against glewlwyd 2.7.5, a provider
    /// independent of the code (Tests/Glewlwyd). Skipped when GLEWLWYD_ISSUER is unset.
    @Suite("glewlwyd: services and resource servers", .enabled(if: Glewlwyd.isRunning), .serialized)
    struct GlewlwydServiceTests {
        func accessTokenValidator() async throws -> AccessTokenValidator {
            try await AccessTokenValidator.discover(
                issuer: try #require(Glewlwyd.issuer), audience: try Glewlwyd.resource.absoluteString,
                discovery: Glewlwyd.discovery, keyCaches: Glewlwyd.keyCaches)
        }

        @Test(
            "client credentials through the cached source: 100 concurrent callers, 1 token request; the token is RFC 9068",
            arguments: ["SECRET", "ES256", "EDDSA"])
        func clientCredentials(client name: String) async throws {
            let counting = CountingTransport(Glewlwyd.transport)
            let source = ClientCredentialsTokenSource(
                client: try await Glewlwyd.client(name, transport: counting), scope: "api.read",
                resources: [try Glewlwyd.resource])
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<100 { group.addTask { try await source.accessToken() } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(tokens.count == 100 && Set(tokens).count == 1)
            #expect(counting.count(path: "/token") == 1)
            #expect(await source.requestCount == 1)

            let accessToken = try await accessTokenValidator().validate(bearerToken: try #require(tokens.first), requiredScopes: ["api.read"])
            let clientID = try Glewlwyd.value("GLEWLWYD_\(name)_CLIENT_ID")
            #expect(accessToken.clientID == clientID && accessToken.subject == clientID)
            #expect(accessToken.header.algorithmName == ["SECRET": "RS256", "ES256": "ES256", "EDDSA": "EdDSA"][name])
            await expectOIDCError(.insufficientScope) { _ = try await accessTokenValidator().validate(bearerToken: tokens[0], requiredScopes: ["api.write"]) }
        }

        @Test("a login's access token validates as RFC 9068; its ID Token is refused as an access token, and the reverse")
        func accessAndIDToken() async throws {
            let (pending, tokens) = try await Glewlwyd.login()
            let validator = try await accessTokenValidator()
            let accessToken = try await validator.validate(bearerToken: tokens.accessToken, requiredScopes: ["api.read"])
            #expect(accessToken.clientID == (try Glewlwyd.value("GLEWLWYD_SECRET_CLIENT_ID")))
            #expect(accessToken.scopes.contains("api.read"))

            let idTokenText = try #require(tokens.idToken)
            let idTokenValidator = try await IDTokenValidator.discover(
                issuer: try #require(Glewlwyd.issuer),
                clientID: try Glewlwyd.value("GLEWLWYD_SECRET_CLIENT_ID"),
                discovery: Glewlwyd.discovery, keyCaches: Glewlwyd.keyCaches)
            let idToken = try await idTokenValidator.validate(idTokenText, expecting: IDTokenExpectations(nonce: ExpectedNonce(pending.nonce)))
            #expect(idToken.subject == accessToken.subject)
            await expectOIDCError(.unexpectedTokenType) { _ = try await validator.validate(bearerToken: idTokenText) }
            await expectOIDCError(.invalidIDTokenHeader) {
                _ = try await idTokenValidator.validate(tokens.accessToken, expecting: IDTokenExpectations(nonce: .noNonceSent))
            }
        }

        @Test("introspection: an active token, then the same token revoked; the JWT answer verified with the provider's keys")
        func introspection() async throws {
            let metadata = try await Glewlwyd.metadata()
            let client = try await Glewlwyd.client("SECRET")
            let tokens = try await client.clientCredentials(scope: "api.read", resources: [try Glewlwyd.resource])
            let endpoint = try #require(metadata.introspectionEndpoint)
            let cache = try await Glewlwyd.keyCaches.cache(for: try #require(metadata.jwksURI))
            // glewlwyd lets a client introspect only its own tokens, with client_secret_basic.
            let introspector = try TokenIntrospector(
                endpoint: endpoint, authentication: try Glewlwyd.authentication("SECRET"),
                transport: Glewlwyd.transport, audience: .contains(try Glewlwyd.resource.absoluteString))
            let info = try await introspector.validate(tokens.accessToken, requiredScopes: ["api.read"])
            #expect(info.clientID == (try Glewlwyd.value("GLEWLWYD_SECRET_CLIENT_ID")) && info.scopes == ["api.read"])
            #expect(info.expiresAt != nil)

            // RFC 9701: glewlwyd puts the token's audience (the resource) in the JWT answer's aud.
            let jwtIntrospector = try TokenIntrospector(
                endpoint: endpoint, authentication: try Glewlwyd.authentication("SECRET"), transport: Glewlwyd.transport,
                audience: .contains(try Glewlwyd.resource.absoluteString),
                jwtResponse: .init(issuer: metadata.issuer, keys: .cache(cache), audience: try Glewlwyd.resource.absoluteString))
            #expect(try await jwtIntrospector.introspect(tokens.accessToken).activeToken?.jwtID == info.jwtID)

            try await client.revoke(tokens.accessToken, hint: "access_token", endpoint: try #require(metadata.revocationEndpoint))
            guard case .inactive = try await introspector.introspect(tokens.accessToken) else {
                Issue.record("a revoked token is still active")
                return
            }
            await expectOIDCError(.inactiveToken) { _ = try await introspector.validate(tokens.accessToken) }
            let refusal = introspector.refusal(for: OIDCError(.inactiveToken, "inactive"), requestHeaders: ["Authorization": "Bearer t"])
            #expect(refusal.status == 401 && refusal.headers.values(for: "WWW-Authenticate")[0].contains(#"error="invalid_token""#))
        }

        @Test("a back-channel logout token sent by glewlwyd to a local endpoint validates through its keys, once")
        func backChannelLogout() async throws {
            let issuer = try #require(Glewlwyd.issuer)
            let clientID = try Glewlwyd.value("GLEWLWYD_LOGOUT_CLIENT_ID")
            let (line, status) = try await Glewlwyd.runScript(
                "logout.py",
                [
                    // `=`: a random secret may begin with "-", which argparse would take for an option (seen once in 64 runs or so).
                    "--issuer", issuer, "--client-id", clientID, "--client-secret=" + (try Glewlwyd.value("GLEWLWYD_LOGOUT_CLIENT_SECRET")),
                    "--logout-uri", try Glewlwyd.value("GLEWLWYD_LOGOUT_URI"), "--redirect-uri", try Glewlwyd.redirectURI.absoluteString,
                ])
            try #require(status == 0, "logout.py failed (status \(status))")
            let request = try JSONParser.parseObject(Array(line.utf8), what: "logout.py output")
            let token = try BackChannelLogoutRequest.logoutToken(
                fromBody: Array(try #require(request["body"]?.stringValue).utf8),
                contentType: request["content_type"]?.stringValue)
            let metadata = try await Glewlwyd.metadata()
            let keys = IssuerKeys.cache(try await Glewlwyd.keyCaches.cache(for: try #require(metadata.jwksURI)))
            // glewlwyd 2.7.5 (Back-Channel Logout draft 06) types it "JWT": refused by default...
            await expectOIDCError(.unexpectedTokenType) {
                _ = try await LogoutTokenValidator(issuer: issuer, clientID: clientID, keys: keys).validate(token)
            }
            // ...and accepted with the explicit opt-ins (draft 06 has no exp either); a second delivery of the same jti is a replay.
            await expectOIDCError(.invalidLogoutToken) {
                _ = try await LogoutTokenValidator(issuer: issuer, clientID: clientID, keys: keys, typeRule: .alsoAcceptingPlainJWT).validate(token)
            }
            let validator = LogoutTokenValidator(
                issuer: issuer, clientID: clientID, keys: keys, typeRule: .alsoAcceptingPlainJWT,
                expirationRule: .optionalForDraftProviders)
            let logout = try await validator.validate(token)
            #expect(logout.subject == request["sub"]?.stringValue)
            #expect(logout.events[LogoutToken.backChannelLogoutEvent] != nil)
            await expectOIDCError(.replayedLogoutToken) { _ = try await validator.validate(token) }
        }
    }
}
