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
        init(tokenAnswer: JSONObject) { self.tokenAnswer = tokenAnswer.jsonString() }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if request.url.path == "/token" {
                return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(tokenAnswer.utf8))
            }
            return request.headers["Authorization"] == "Bearer AT-2" ? HTTPResponse(status: 200)
                : HTTPResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#])
        }
    }

    func run(refreshedIDToken: String?, tokenType: String = "Bearer", refreshToken: String? = "RT-2") async throws -> (status: Int?, error: OIDCError?, kept: TokenResponse?) {
        var metadata = ProviderMetadata(issuer: T.issuer)
        metadata.authorizationEndpoint = URL(string: "https://op.example.com/authorize")
        metadata.tokenEndpoint = URL(string: "https://op.example.com/token")
        metadata.jwksURI = URL(string: "https://op.example.com/jwks")
        metadata.idTokenSigningAlgValuesSupported = ["HS256"]
        var answer: JSONObject = ["access_token": "AT-2", "token_type": .string(tokenType)]
        if let refreshToken { answer["refresh_token"] = .string(refreshToken) }
        if let refreshedIDToken { answer["id_token"] = .string(refreshedIDToken) }
        let client = try OIDCClient(metadata: metadata, authentication: .clientSecretBasic(clientID: T.clientID, secret: T.secret),
                                    transport: Provider(tokenAnswer: answer), configuration: OIDCClient.Configuration(clock: { T.now }))
        let original = TokenResponse(accessToken: "AT-1", refreshToken: "RT-1", idToken: try T.idToken())
        let session = try await client.session(tokens: original, store: InMemoryTokenStore(), origins: [Fixtures.api])
        do {
            let status = try await session.send(HTTPRequest(url: Fixtures.api)).status
            return (status, nil, await session.currentTokens)
        } catch let error as OIDCError {
            return (nil, error, await session.currentTokens)
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

    @Test("a refresh answered with token_type DPoP is refused (RFC 6749 §7.1)")
    func tokenType() async throws {
        let outcome = try await run(refreshedIDToken: nil, tokenType: "DPoP")
        #expect(outcome.status == nil)
        #expect(outcome.error?.reason.contains("unsupported_token_type") == true || outcome.error?.code == .unsupportedTokenType,
                Comment(rawValue: "\(String(describing: outcome.error))"))
        #expect(outcome.kept?.accessToken == "AT-1")
    }
}
