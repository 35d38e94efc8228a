import Foundation
import JOSE
import Testing

@testable import OIDC

/// RFC 8693 token exchange answers with a `token_type` outside RFC 6749's registry (`N_A`): readable when the
/// caller lists the type in `acceptedTokenTypes`, with or without DPoP; refused otherwise.
@Suite("OIDCClient: token types the caller accepts (token exchange's N_A)")
struct OIDCClientTokenTypeTests {
    static func client(accepted: Set<String>, dpop: Bool) throws -> OIDCClient {
        var configuration = OIDCClient.Configuration(clock: TestClock().now, acceptedTokenTypes: accepted)
        configuration.dpop = dpop ? DPoPBinding(key: try DPoPKey.generate()) : nil
        let transport = CannedTransport(
            status: 200, body: #"{"access_token":"eyJ.id.token","token_type":"N_A","issued_token_type":"urn:ietf:params:oauth:token-type:id_token"}"#)
        return try OIDCClient(
            metadata: OIDCClientTests.metadata(), authentication: .clientSecretBasic(clientID: "app", secret: "s3cret-s3cret-s3cret-s3cret!"),
            transport: transport, configuration: configuration)
    }

    static let exchange = TokenExchangeRequest(subjectToken: "st", subjectTokenType: .accessToken, requestedTokenType: .idToken)

    @Test("N_A listed in acceptedTokenTypes: the exchange answer is read, with DPoP or without", arguments: [false, true])
    func accepted(_ dpop: Bool) async throws {
        let answer = try await Self.client(accepted: ["bearer", "N_A"], dpop: dpop).tokenClient.exchangeToken(Self.exchange)
        #expect(answer.tokens.tokenType == "N_A" && answer.issuedTokenType == .idToken)
        #expect(answer.tokens.accessToken == "eyJ.id.token")
    }

    @Test("N_A not listed: with DPoP the answer is refused as unsupported_token_type")
    func refused() async throws {
        let error = await #expect(throws: OIDCError.self) {
            _ = try await Self.client(accepted: ["bearer"], dpop: true).tokenClient.exchangeToken(Self.exchange)
        }
        #expect(error?.code == .unsupportedTokenType)
    }
}
