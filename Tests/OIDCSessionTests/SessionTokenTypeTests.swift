import Foundation
import JOSE
import OIDC
import OIDCSession
import Testing

/// A session sends only Bearer and DPoP tokens: one of another type (RFC 8693's `N_A`, which a client may
/// accept to read) is refused before anything is sent.
@Suite("AuthenticatedSession: only Bearer and DPoP tokens are sent")
struct SessionTokenTypeTests {
    final class API: HTTPTransport, Sendable {
        let calls = FileTokenStoreCoordinationTests.Counter()
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            _ = calls.next()
            return TransportResponse(status: 200)
        }
    }

    @Test("a session holding an N_A token refuses to send it (unsupported_token_type); a Bearer one goes out", arguments: ["N_A", "Bearer"])
    func onlyBearerAndDPoP(_ type: String) async throws {
        var metadata = ProviderMetadata(issuer: "https://op.example.com")
        metadata.authorizationEndpoint = URL(string: "https://op.example.com/authorize")
        metadata.tokenEndpoint = URL(string: "https://op.example.com/token")
        metadata.jwksURI = URL(string: "https://op.example.com/jwks")
        let api = API()
        let client = try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: "app", secret: "s3cret-s3cret-s3cret-s3cret!"), transport: api,
            configuration: OIDCClient.Configuration(acceptedTokenTypes: ["bearer", "n_a"]))
        let origin = URL(string: "https://api.example.com")!
        let session = try await client.session(
            tokens: TokenResponse(accessToken: "AT-1", tokenType: type), configuration: .init(allowedOrigins: [origin]))
        let request = TransportRequest(url: URL(string: "https://api.example.com/data")!)
        if type == "N_A" {
            let error = await #expect(throws: OIDCError.self) { _ = try await session.send(request) }
            #expect(error?.code == .unsupportedTokenType)
            #expect(api.calls.next() == 1, "nothing was sent")
        } else {
            #expect(try await session.send(request).status == 200)
        }
    }
}
