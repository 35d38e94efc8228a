import Foundation
import JOSE
import Testing

@testable import OIDC

/// Keeps every event it is given.
final class RecordingObserver: OIDCObserver, Sendable {
    private let recorded = Locked<[OIDCEvent]>([])
    func record(_ event: OIDCEvent) { recorded.withLock { $0.append(event) } }
    var events: [OIDCEvent] { recorded.withLock { $0 } }
    func events(_ kind: OIDCEvent.Kind) -> [OIDCEvent] { events.filter { $0.kind == kind } }
    func clear() { recorded.withLock { $0.removeAll() } }
}

/// The observability hook (`OIDCObserver`) fed by the client, the key cache and the ID Token validator.
@Suite("Observability: events of the client, the key cache and the ID Token validator")
struct ObservabilityTests {
    typealias F = IDTokenFixtures
    static let origin = "https://op.example.com"

    /// An `OIDCClient` with `observer`, scripted by `OIDCClientTests`' transport; `tokenURL` may carry a query.
    static func client(
        observer: RecordingObserver, tokenURL: String = OIDCClientTests.tokenURL,
        secret: String = "s3cret-s3cret-s3cret-s3cret-s3cret!"
    ) throws -> (OIDCClient, ScriptedTransport) {
        let transport = ScriptedTransport()
        transport.json(F.jwksURL.absoluteString, F.jwks([try F.publicJWK("rsa2048", kid: "k1")]))
        var metadata = OIDCClientTests.metadata()
        metadata.tokenEndpoint = URL(string: tokenURL)
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        configuration.observer = observer
        let client = try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: F.clientID, secret: secret),
            transport: transport, configuration: configuration)
        return (client, transport)
    }

    @Test("a login: the code exchange (grant authorization_code), the key-set fetch and the ID Token validation, each with origin, duration, outcome")
    func login() async throws {
        let observer = RecordingObserver()
        let (client, transport) = try Self.client(observer: observer)
        let pending = try await client.startLogin(LoginRequest(redirectURI: OIDCClientTests.redirectURI))
        OIDCClientTests.tokens(transport, idToken: try OIDCClientTests.idToken([("nonce", .string(try #require(pending.nonce).value))]))
        _ = try await client.finishLogin(pending, callback: .url(OIDCClientTests.callback(pending)))

        let token = try #require(observer.events(.tokenRequest).only)
        #expect(token.grantType == "authorization_code" && token.outcome == .success && token.origin == Self.origin && token.duration != nil)
        let idToken = try #require(observer.events(.idTokenValidation).only)
        #expect(idToken.outcome == .success && idToken.origin == Self.origin && idToken.duration != nil)
        let keys = try #require(observer.events(.keySetFetched).only)
        #expect(keys.outcome == .success && keys.origin == Self.origin)
        #expect(observer.events.map(\.kind) == [.tokenRequest, .keySetFetched, .idTokenValidation])
    }

    @Test("an ID Token refused: its code (nonce_mismatch, invalid_signature); a refused code exchange: the OAuth code")
    func idTokenRefused() async throws {
        let observer = RecordingObserver()
        let (client, transport) = try Self.client(observer: observer)
        let pending = try await client.startLogin(LoginRequest(redirectURI: OIDCClientTests.redirectURI))
        OIDCClientTests.tokens(transport, idToken: try OIDCClientTests.idToken([("nonce", "another-nonce")]))
        await expectOIDCError(.nonceMismatch) { try await client.finishLogin(pending, callback: .url(OIDCClientTests.callback(pending))) }
        #expect(observer.events(.idTokenValidation).map(\.outcome) == [.failure(code: "nonce_mismatch")])
        #expect(observer.events(.tokenRequest).map(\.outcome) == [.success])

        observer.clear()
        OIDCClientTests.tokens(transport, idToken: F.tamper(try OIDCClientTests.idToken([("nonce", .string(try #require(pending.nonce).value))])))
        await expectOIDCError(.invalidSignature) { try await client.finishLogin(pending, callback: .url(OIDCClientTests.callback(pending))) }
        #expect(observer.events(.idTokenValidation).map(\.outcome) == [.failure(code: "invalid_signature")])

        observer.clear()
        transport.json(OIDCClientTests.tokenURL, #"{"error":"invalid_grant","error_description":"code used"}"#, status: 400)
        await expectOIDCError(.oauthError) { try await client.finishLogin(pending, callback: .url(OIDCClientTests.callback(pending))) }
        let refused = try #require(observer.events(.tokenRequest).only)
        #expect(refused.outcome == .failure(code: "invalid_grant") && refused.grantType == "authorization_code")
        #expect(observer.events(.idTokenValidation).isEmpty)
    }

    @Test("refresh, UserInfo and revocation are recorded with their kinds and grant type")
    func otherCalls() async throws {
        let observer = RecordingObserver()
        let (client, transport) = try Self.client(observer: observer)
        OIDCClientTests.tokens(transport, idToken: nil)
        let fresh = try await client.refresh(TokenResponse(accessToken: "at-0", refreshToken: "rt-0"))
        transport.json("https://op.example.com/userinfo", #"{"sub":"alice"}"#)
        _ = try await client.tokenClient.userInfo(accessToken: fresh.accessToken, endpoint: URL(string: "https://op.example.com/userinfo")!)
        transport.json("https://op.example.com/revoke", "{}")
        try await client.revoke(fresh.accessToken)
        #expect(observer.events.map(\.kind) == [.tokenRequest, .userInfo, .revocation])
        #expect(observer.events.first?.grantType == "refresh_token")
        #expect(observer.events.allSatisfy { $0.outcome == .success && $0.origin == Self.origin })
    }

    @Test("JWKSetCache: a refetch for an unknown kid, then a cool-down, each recorded")
    func keySetRefetch() async throws {
        let observer = RecordingObserver()
        let transport = ScriptedTransport()
        let url = F.jwksURL.absoluteString
        let old = TransportResponse(status: 200, body: Array(F.jwks([try F.publicJWK("rsa2048", kid: "old")]).utf8))
        let rotated = TransportResponse(
            status: 200,
            body: Array(
                F.jwks([
                    try F.publicJWK("rsa2048", kid: "old"),
                    try F.publicJWK("rsa2048", kid: "new"),
                ]).utf8))
        transport.script(url, [.response(old), .response(rotated)])
        let cache = try JWKSetCache(
            jwksURI: F.jwksURL, transport: transport,
            configuration: .init(refreshCoolDown: 30, clock: TestClock().now), observer: observer)
        func token(_ kid: String) throws -> CompactJWS { try CompactJWS(F.sign(F.claims(), key: F.privateKey("rsa2048", kid: kid), .rs256)) }

        _ = try await cache.verify(token("old"))
        #expect(observer.events.map(\.kind) == [.keySetFetched])
        _ = try await cache.verify(token("new"))
        #expect(observer.events.map(\.kind) == [.keySetFetched, .keySetFetched, .keySetRefetchedForUnknownKey])
        let refetch = try #require(observer.events(.keySetRefetchedForUnknownKey).only)
        #expect(refetch.outcome == .success && refetch.origin == Self.origin && refetch.duration != nil)

        // Within the cool-down, another unknown kid causes no fetch: recorded as cooling down, refused with its code.
        observer.clear()
        await expectOIDCError(.signingKeyNotFound) { try await cache.verify(token("ghost")) }
        #expect(transport.calls(url) == 2)
        #expect(observer.events.map(\.kind) == [.keySetCoolingDown])
        #expect(observer.events.first?.outcome == .failure(code: "signing_key_not_found"))
    }

    @Test("no event carries a token, code, secret, state, nonce, verifier or query: description, debug description and dump")
    func noSecretsInEvents() async throws {
        let observer = RecordingObserver()
        let querySecret = "QUERYSECRET0042"
        let clientSecret = "CLIENTSECRET-0042-0042-0042-0042-0042"
        let tokenURL = "https://op.example.com/token?tenant=\(querySecret)"
        let (client, transport) = try Self.client(observer: observer, tokenURL: tokenURL, secret: clientSecret)
        let pending = try await client.startLogin(LoginRequest(redirectURI: OIDCClientTests.redirectURI))
        let nonce = try #require(pending.nonce).value
        let idToken = try OIDCClientTests.idToken([("nonce", .string(nonce))])
        let accessToken = "ACCESSTOKEN-0042", refreshToken = "REFRESHTOKEN-0042", code = "AUTHCODE-0042"
        transport.json(
            tokenURL, #"{"access_token":"\#(accessToken)","token_type":"Bearer","expires_in":300,"refresh_token":"\#(refreshToken)","id_token":"\#(idToken)"}"#)
        let callback = URL(string: "https://app.example.com/callback?code=\(code)&state=\(pending.state)")!
        let login = try await client.finishLogin(pending, callback: .url(callback))
        _ = try? await client.refresh(login.tokens)
        // A refused refresh whose description repeats a secret: nothing of the provider's text is kept.
        transport.json(tokenURL, #"{"error":"invalid_grant","error_description":"\#(refreshToken) is spent"}"#, status: 400)
        await expectOIDCError(.oauthError) { try await client.refresh(login.tokens) }
        transport.json(tokenURL, #"{"error":"custom_\#(querySecret)"}"#, status: 400)
        await expectOIDCError(.oauthError) { try await client.refresh(login.tokens) }
        // A refused ID Token.
        OIDCClientTests.tokens(transport, idToken: try OIDCClientTests.idToken([("nonce", "NONCE-OTHER-0042")]))
        let again = try await client.startLogin(LoginRequest(redirectURI: OIDCClientTests.redirectURI))
        transport.json(tokenURL, #"{"access_token":"\#(accessToken)","token_type":"Bearer","refresh_token":"\#(refreshToken)","id_token":"\#(idToken)"}"#)
        await expectOIDCError(.nonceMismatch) {
            try await client.finishLogin(again, callback: .url(URL(string: "https://app.example.com/callback?code=\(code)&state=\(again.state)")!))
        }

        let secrets = [
            querySecret, clientSecret, accessToken, refreshToken, code, idToken, pending.state, nonce,
            try #require(pending.codeVerifier).value, try #require(again.nonce).value, again.state, "/token", "tenant",
        ]
        let events = observer.events
        #expect(events.count >= 6)
        #expect(events.contains { $0.outcome == .failure(code: "invalid_grant") })
        #expect(events.contains { $0.outcome == .failure(code: "oauth_error") })  // an unregistered code is not copied
        #expect(events.contains { $0.outcome == .failure(code: "nonce_mismatch") })
        for event in events {
            var dumped = ""
            dump(event, to: &dumped)
            for text in [String(describing: event), String(reflecting: event), dumped] {
                for secret in secrets { #expect(!text.contains(secret), "\(event.kind) shows a secret") }
            }
        }
    }

    @Test("discovery: one event per document fetched (not per cache hit), with the issuer's origin")
    func discovery() async throws {
        let observer = RecordingObserver()
        let transport = ScriptedTransport()
        transport.json(F.issuer + "/.well-known/openid-configuration", DiscoveryTests.document())
        let discovery = Discovery(transport: transport, clock: TestClock().now, observer: observer)
        _ = try await discovery.metadata(for: F.issuer)
        _ = try await discovery.metadata(for: F.issuer)
        #expect(observer.events.map(\.kind) == [.discovery])
        #expect(observer.events.first?.outcome == .success && observer.events.first?.origin == Self.origin)
        transport.json("https://other.example/.well-known/openid-configuration", "nope", status: 500)
        await #expect(throws: OIDCError.self) { try await Discovery.fetch(issuer: "https://other.example", transport: transport, observer: observer) }
        #expect(observer.events.last?.outcome == .failure(code: "discovery_http_status") && observer.events.last?.origin == "https://other.example")
    }

    @Test("a pushed authorization request: one provider.call event; an OAuth refusal names its registered code")
    func pushedAuthorization() async throws {
        let observer = RecordingObserver()
        let accepted = CannedTransport(status: 201, body: #"{"request_uri":"urn:ietf:params:oauth:request_uri:abc","expires_in":60}"#)
        let client = try TokenClient(
            tokenEndpoint: PushedAuthorizationTests.token, issuer: PushedAuthorizationTests.issuer,
            authentication: .clientSecretPost(clientID: "app", secret: "s"), transport: accepted, observer: observer)
        _ = try await client.pushAuthorizationRequest(PushedAuthorizationTests.parameters, endpoint: PushedAuthorizationTests.par)
        let refused = try TokenClient(
            tokenEndpoint: PushedAuthorizationTests.token, issuer: PushedAuthorizationTests.issuer,
            authentication: .clientSecretPost(clientID: "app", secret: "s"),
            transport: CannedTransport(status: 400, body: #"{"error":"invalid_request"}"#), observer: observer)
        await #expect(throws: OIDCError.self) {
            try await refused.pushAuthorizationRequest(PushedAuthorizationTests.parameters, endpoint: PushedAuthorizationTests.par)
        }
        #expect(observer.events.map(\.kind) == [.providerCall, .providerCall])
        #expect(observer.events.map(\.outcome) == [.success, .failure(code: "invalid_request")])
        #expect(observer.events.allSatisfy { $0.origin == "https://as.example" })
    }

    @Test("failure codes: the registered OAuth code, else our stable code; never the provider's or the error's text")
    func codes() {
        struct Other: Error { let text = "SECRET-TEXT" }
        let invalidGrant = OAuthError(error: "invalid_grant", errorDescription: "SECRET-TEXT")
        #expect(Observation.code(of: OIDCError(.oauthError, "SECRET-TEXT", oauthError: invalidGrant)) == "invalid_grant")
        #expect(Observation.code(of: OIDCError(.oauthError, "x", oauthError: OAuthError(error: "SECRET-TEXT"))) == "oauth_error")
        #expect(Observation.code(of: OIDCError(OIDCError.Code(rawValue: "logged_out"), "x", oauthError: invalidGrant)) == "invalid_grant")
        #expect(Observation.code(of: OIDCError(OIDCError.Code(rawValue: "refresh_rejected"), "x", oauthError: invalidGrant)) == "refresh_rejected")
        #expect(Observation.code(of: OIDCError(.nonceMismatch, "SECRET-TEXT")) == "nonce_mismatch")
        #expect(Observation.code(of: JOSEError(.invalidKey, "SECRET-TEXT")) == "invalid_key")
        #expect(Observation.code(of: TransportError.connectionFailed("SECRET-TEXT")) == "transport")
        #expect(Observation.code(of: CancellationError()) == "cancelled")
        #expect(Observation.code(of: Other()) == "error")
    }

    @Test("origin(of:) keeps scheme, host and port only")
    func origin() {
        #expect(OIDCEvent.origin(of: URL(string: "https://user:pw@OP.example.com:8443/token?x=1#f")!) == "https://op.example.com:8443")
        #expect(Observation.origin(of: "https://op.example.com/tenant") == "https://op.example.com")
    }
}

extension Array {
    /// The single element, or `nil` when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
