import Foundation
import JOSE
import OIDC
import OIDCSession
import Testing

/// `OIDCClient.session(...)`: the session refreshes through the client, so a refreshed ID Token is
/// validated and checked against the previous one (the same `RefreshedIDTokenPolicy` as `client.refresh`),
/// and a `token_type` the client does not use is refused.
@Suite("OIDCClient.session")
struct OIDCClientSessionTests {
    typealias T = RefreshedIDTokenTests

    /// The provider's token endpoint (answer scripted) and an API that accepts only AT-2.
    final class Provider: HTTPTransport, Sendable {
        let tokenAnswer: String
        let tokenRequests = FileTokenStoreCoordinationTests.Counter()
        init(tokenAnswer: JSONObject) { self.tokenAnswer = tokenAnswer.jsonString() }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            if request.url.path == "/token" {
                _ = tokenRequests.next()
                return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(tokenAnswer.utf8))
            }
            return request.headers["Authorization"] == "Bearer AT-2"
                ? TransportResponse(status: 200)
                : TransportResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#])
        }
    }

    /// One API request through a session on an `OIDCClient` whose token endpoint answers the refresh as
    /// scripted; what the session then holds, and how many token requests the provider saw.
    func run(
        refreshedIDToken: String?, tokenType: String = "Bearer",
        refreshToken: String? = "RT-2"
    ) async throws -> (status: Int?, error: OIDCError?, kept: TokenResponse?, tokenRequests: Int) {
        var metadata = ProviderMetadata(issuer: T.issuer)
        metadata.authorizationEndpoint = URL(string: "https://op.example.com/authorize")
        metadata.tokenEndpoint = URL(string: "https://op.example.com/token")
        metadata.jwksURI = URL(string: "https://op.example.com/jwks")
        metadata.idTokenSigningAlgValuesSupported = ["HS256"]
        var answer: JSONObject = ["access_token": "AT-2", "token_type": .string(tokenType)]
        if let refreshToken { answer["refresh_token"] = .string(refreshToken) }
        if let refreshedIDToken { answer["id_token"] = .string(refreshedIDToken) }
        let provider = Provider(tokenAnswer: answer)
        let client = try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: T.clientID, secret: T.secret),
            transport: provider, configuration: OIDCClient.Configuration(clock: { T.now }))
        let original = TokenResponse(accessToken: "AT-1", refreshToken: "RT-1", idToken: try T.idToken())
        let session = try await client.session(
            tokens: original,
            configuration: .init(allowedOrigins: [Fixtures.api], store: InMemoryTokenStore()))
        do {
            let status = try await session.send(TransportRequest(url: Fixtures.api)).status
            return (status, nil, await session.currentTokens, provider.tokenRequests.value)
        } catch let error as OIDCError {
            return (nil, error, await session.currentTokens, provider.tokenRequests.value)
        }
    }

    @Test("a valid refreshed ID Token of the same session is kept")
    func valid() async throws {
        let fresh = try T.idToken(["iat": .integer(1_800_000_030)])
        let outcome = try await run(refreshedIDToken: fresh)
        #expect(outcome.status == 200, Comment(rawValue: "\(String(describing: outcome.error))"))
        #expect(outcome.kept?.idToken == fresh && outcome.kept?.accessToken == "AT-2")
    }

    @Test("a refreshed ID Token for another subject, or badly signed, is refused and the old tokens kept (no rotation)")
    func refused() async throws {
        let other = try await run(refreshedIDToken: try T.idToken(["sub": "mallory"]), refreshToken: nil)
        #expect(other.error?.code == .refreshSubjectChanged, "\(String(describing: other.error))")
        #expect(other.kept?.accessToken == "AT-1")
        let forged = try await run(refreshedIDToken: try T.idToken(secret: "another-secret-of-at-least-32-bytes!!!"), refreshToken: nil)
        #expect(forged.error?.code == .invalidSignature, "\(String(describing: forged.error))")
    }

    @Test("a refused refreshed ID Token with a rotated refresh token logs out: the old refresh token is spent")
    func refusedRotated() async throws {
        let other = try await run(refreshedIDToken: try T.idToken(["sub": "mallory"]), refreshToken: "RT-2")
        #expect(other.error?.code == .loggedOut, "\(String(describing: other.error))")
        #expect(other.error?.reason.contains("refresh_subject_changed") == true)
        #expect(other.kept == nil)
    }

    @Test(
        "a refresh answered with token_type DPoP and the same or no refresh token is refused (RFC 6749 §7.1); tokens kept",
        arguments: ["RT-1", nil] as [String?])
    func tokenType(_ refreshToken: String?) async throws {
        let outcome = try await run(refreshedIDToken: nil, tokenType: "DPoP", refreshToken: refreshToken)
        #expect(outcome.status == nil)
        #expect(outcome.error?.code == .unsupportedTokenType, Comment(rawValue: "\(String(describing: outcome.error))"))
        #expect(outcome.kept?.accessToken == "AT-1" && outcome.kept?.refreshToken == "RT-1")
    }

    /// The refresher's own check (the client's token type), not the session's ID Token policy, refuses
    /// the answer: the refresh token sent is just as spent, so the same rule applies (`SpentRefreshToken`).
    @Test("a refresh answered with token_type DPoP and a rotated refresh token logs out: RT-1 is spent, never replayed")
    func tokenTypeRotated() async throws {
        let outcome = try await run(refreshedIDToken: nil, tokenType: "DPoP", refreshToken: "RT-2")
        #expect(outcome.error?.code == .loggedOut, Comment(rawValue: "\(String(describing: outcome.error))"))
        #expect(outcome.error?.reason.contains("unsupported_token_type") == true)
        #expect(outcome.error.map { !$0.reason.contains("RT-2") && !$0.reason.contains("AT-2") } == true, "no token in the error")
        #expect(outcome.kept == nil)
        #expect(outcome.tokenRequests == 1)
    }

    @Test(
        "with a DPoP binding, the client's session sends Authorization: DPoP with a proof bound to the token, refreshes DPoP-bound on a 401, never sends Bearer"
    )
    func dpopSession() async throws {
        var metadata = ProviderMetadata(issuer: "https://as.example")
        metadata.authorizationEndpoint = URL(string: "https://as.example/authorize")
        metadata.tokenEndpoint = URL(string: "https://as.example/token")
        metadata.jwksURI = URL(string: "https://as.example/jwks")
        let world = DPoPWorld()
        var configuration = OIDCClient.Configuration(clock: { T.now })
        configuration.dpop = DPoPBinding(key: try DPoPKey.generate())
        let client = try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: "app", secret: "s"),
            transport: world, configuration: configuration)
        let api = URL(string: "https://api.example/data")!
        // AT-0 is refused (the world accepts AT-1 until a refresh issues AT-2).
        let session = try await client.session(
            tokens: TokenResponse(accessToken: "AT-0", tokenType: "DPoP", refreshToken: "RT-1"),
            configuration: .init(allowedOrigins: [api], proactiveRefreshMargin: nil))
        #expect(try await session.send(TransportRequest(url: api)).status == 200)
        let seen = world.seen
        #expect(seen.map(\.url.host) == ["api.example", "as.example", "api.example"])
        #expect(seen[0].authorization == "DPoP AT-0" && seen[0].proof?["ath"]?.stringValue == DPoPKey.accessTokenHash("AT-0"))
        #expect(seen[1].proof?["htu"] == "https://as.example/token" && seen[1].proof?["ath"] == nil)
        #expect(seen[2].authorization == "DPoP AT-2" && seen[2].proof?["ath"]?.stringValue == DPoPKey.accessTokenHash("AT-2"))
        #expect(!seen.contains { $0.authorization?.lowercased().hasPrefix("bearer") == true })
    }
}
