import Foundation
import JOSE
import OIDC
import OIDCNetworking
import TestProcesses
import Testing

extension RealProviderTests {
    @Suite("Provider key rotation through the JWK Set cache", .serialized)
    struct Rotation {
        /// Logs in at `issuer` and returns the ID Token and the nonce sent.
        func login(_ issuer: String, transport: URLSessionTransport) async throws -> (String, String?) {
            let metadata = try await Discovery(transport: transport).metadata(for: issuer)
            var request = try OAuthRequest(clientID: "client-basic", redirectURI: Provider.redirectURI)
            request.scopes = ["openid"]
            let pending = try request.pendingAuthorization(
                at: try #require(metadata.authorizationEndpoint), issuer: metadata.issuer,
                issuerParameterSupported: metadata.authorizationResponseIssParameterSupported == true)
            let code = try await #require(try pending.parseRedirect(try Provider.login(pending.authorizationURL)).code)
            let client = try TokenClient(
                tokenEndpoint: try #require(metadata.tokenEndpoint),
                authentication: .clientSecretBasic(clientID: "client-basic", secret: "secret-basic"), transport: transport)
            let tokens = try await client.exchangeCode(code, redirectURI: Provider.redirectURI, codeVerifier: pending.codeVerifier?.value)
            return (try #require(tokens.idToken), pending.nonce?.value)
        }

        @Test("a token signed with a new kid validates after exactly one re-fetch; the old key stays published as inactive")
        func rotation() async throws {
            let port = ShortLivedProvider.defaultPort  // IDP_PORT+1: never the main provider's port
            let oldKey = Provider.repository.appendingPathComponent("Keys/rsa2048.pem").path
            let newKey = FileManager.default.temporaryDirectory.appendingPathComponent("idp-rotated-\(getpid()).pem").path
            defer { try? FileManager.default.removeItem(atPath: newKey) }
            let generate = try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                ["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", newKey])
            try #require(generate.status == 0, "openssl could not make the new signing key")

            let transport = URLSessionTransport()
            let first = try await ShortLivedProvider(port: port, environment: ["IDP_SIGNING_KEY": oldKey])
            let issuer = first.issuer
            let metadata = try await Discovery(transport: transport).metadata(for: issuer)
            let cache = try JWKSetCache(jwksURI: try #require(metadata.jwksURI), transport: transport)
            let validator = IDTokenValidator(configuration: IDTokenValidator.Configuration(issuer: issuer, clientID: "client-basic"), keys: .cache(cache))

            let (before, nonceBefore) = try await login(issuer, transport: transport)
            _ = try await validator.validate(before, expecting: IDTokenExpectations(nonce: nonceBefore.map(ExpectedNonce.sent) ?? .noNonceSent))
            #expect(await cache.successfulFetches == 1)

            await first.stop()
            let second = try await ShortLivedProvider(port: port, environment: ["IDP_SIGNING_KEY": newKey, "IDP_INACTIVE_KEYS": oldKey])
            #expect(second.issuer == issuer)
            let (after, nonceAfter) = try await login(issuer, transport: transport)
            #expect(try CompactJWS(after).header.keyID != CompactJWS(before).header.keyID)
            _ = try await validator.validate(after, expecting: IDTokenExpectations(nonce: nonceAfter.map(ExpectedNonce.sent) ?? .noNonceSent))
            #expect(await cache.successfulFetches == 2)
            // The token signed before the rotation still validates: the old key is published as inactive.
            _ = try await validator.validate(before, expecting: IDTokenExpectations(nonce: nonceBefore.map(ExpectedNonce.sent) ?? .noNonceSent))
            #expect(await cache.successfulFetches == 2)
            await second.stop()
        }
    }
}
