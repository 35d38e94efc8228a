import Foundation
import JOSE
import Testing

@testable import OIDC

/// Back-channel logout on the relying-party side: `OIDCClient` checks logout tokens with its own key cache and
/// the replay cache of its configuration, and answers the whole HTTP request.
@Suite("OIDCClient back-channel logout")
struct ClientBackChannelLogoutTests {
    /// A client whose scripted provider publishes `rsa2048` as `k1`, with `replays` as its logout replay cache.
    static func client(replays: InMemoryReplayCache = InMemoryReplayCache()) throws -> (OIDCClient, ScriptedTransport) {
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        configuration.logoutTokens.replays = replays
        return try OIDCClientTests.client(configuration: configuration)
    }

    static func logoutToken(
        jti: String = "jti-1", _ changes: [(String, JSONValue?)] = [], key: String = "rsa2048", kid: String = "k1",
        algorithm: JWSAlgorithm = .rs256
    ) throws -> String {
        let now = Int64(F.start.timeIntervalSince1970)
        var claims: JSONObject = [
            "iss": .string(F.issuer), "aud": .string(F.clientID), "sub": "alice", "sid": "s-1", "jti": .string(jti),
            "iat": .integer(now), "exp": .integer(now + 120),
            "events": .object([LogoutToken.backChannelLogoutEvent: .object([:])]),
        ]
        for (name, value) in changes { claims[name] = value }
        return try JWT.sign(claims, key: F.privateKey(key, kid: kid), algorithm: algorithm, header: ["typ": "logout+jwt"])
    }

    static func form(_ token: String) -> [UInt8] { Array("logout_token=\(token)".utf8) }

    @Test("a token signed by a key of the client's cache is accepted, and the cache is the one the client exposes")
    func acceptedWithTheClientsKeys() async throws {
        let (client, transport) = try Self.client()
        let token = try await client.validateLogoutToken(try Self.logoutToken())
        #expect(token.issuer == F.issuer && token.subject == "alice" && token.sessionID == "s-1" && token.jwtID == "jti-1")
        #expect(transport.calls(F.jwksURL.absoluteString) == 1)
        guard case .cache(let cache) = client.providerKeys else {
            Issue.record("the client's keys are not its JWK Set cache")
            return
        }
        #expect(cache.jwksURI == F.jwksURL)
        #expect(await cache.successfulFetches == 1)  // the fetch the validation made went into this cache
        // The ID Token validator shares it: validating an ID Token now fetches nothing more.
        _ = try await client.validator.validate(try OIDCClientTests.idToken(), expecting: IDTokenExpectations(nonce: .noNonceSent))
        #expect(transport.calls(F.jwksURL.absoluteString) == 1)
    }

    @Test("a replayed token is refused, and its jti is in the configuration's replay cache")
    func replayRefused() async throws {
        let replays = InMemoryReplayCache()
        let (client, _) = try Self.client(replays: replays)
        let text = try Self.logoutToken(jti: "once")
        _ = try await client.validateLogoutToken(text)
        await expectOIDCError(.replayedLogoutToken) { try await client.validateLogoutToken(text) }
        let again = replays.recordFirstUse(of: "once", scope: F.issuer, until: F.start.addingTimeInterval(600), now: F.start)
        #expect(again == .replayed)
    }

    @Test("a wrong audience, a foreign key and a wrong issuer are refused with their codes")
    func refusals() async throws {
        let (client, _) = try Self.client()
        await expectOIDCError(.audienceMismatch) { try await client.validateLogoutToken(try Self.logoutToken(jti: "a", [("aud", "another-client")])) }
        await expectOIDCError(.signingKeyNotFound) {
            try await client.validateLogoutToken(try Self.logoutToken(jti: "b", key: "p256", kid: "elsewhere", algorithm: .es256))
        }
        await expectOIDCError(.invalidSignature) { try await client.validateLogoutToken(F.tamper(try Self.logoutToken(jti: "c"))) }
        await expectOIDCError(.issuerMismatch) {
            try await client.validateLogoutToken(try Self.logoutToken(jti: "d", [("iss", "https://other.example")]))
        }
    }

    @Test("the HTTP answer: 200 with the token, then 400 with the RFC 6749 error body for a replay and a bad request")
    func httpAnswer() async throws {
        let (client, _) = try Self.client()
        let body = Self.form(try Self.logoutToken(jti: "http-1"))
        let accepted = await client.backChannelLogout(body: body, contentType: "application/x-www-form-urlencoded")
        #expect(accepted.response.status == 200)
        #expect(accepted.response.headers["Cache-Control"] == "no-store")
        #expect(accepted.token?.subject == "alice" && accepted.error == nil)

        let replayed = await client.backChannelLogout(body: body, contentType: "application/x-www-form-urlencoded")
        #expect(replayed.response.status == 400 && replayed.token == nil)
        #expect(replayed.error?.code == .replayedLogoutToken)
        #expect(replayed.response.headers["Content-Type"] == "application/json")
        #expect(replayed.response.headers["Cache-Control"] == "no-store")
        let object = try JSONParser.parseObject(replayed.response.body, what: "the answer")
        #expect(object["error"] == "invalid_request")
        #expect(object["error_description"] == "replayed_logout_token")

        let wrongType = await client.backChannelLogout(body: Self.form(try Self.logoutToken(jti: "http-2")), contentType: "application/json")
        #expect(wrongType.response.status == 400 && wrongType.error?.code == .invalidLogoutRequest)
        let wrongAudience = await client.backChannelLogout(
            body: Self.form(try Self.logoutToken(jti: "http-3", [("aud", "x")])),
            contentType: "application/x-www-form-urlencoded")
        #expect(wrongAudience.response.status == 400 && wrongAudience.error?.code == .audienceMismatch)
    }
}
