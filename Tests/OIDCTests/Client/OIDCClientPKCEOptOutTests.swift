import Foundation
import JOSE
import Testing

@testable import OIDC

/// `OIDCClient.Configuration.optOutOfPKCE`: off by default; when on, no `code_challenge` in the URL or the
/// pushed form, an observer event per login, the login still finishes; refused under the FAPI 2.0 profile.
@Suite("OIDCClient: the named PKCE opt-out")
struct OIDCClientPKCEOptOutTests {
    typealias F = IDTokenFixtures

    static func names(_ url: URL) -> [String] {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? []
    }

    @Test("default: code_challenge (S256) sent, no pkce_omitted event")
    func defaultSendsPKCE() async throws {
        let observer = RecordingObserver()
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        configuration.observer = observer
        let (client, _) = try OIDCClientTests.client(configuration: configuration)
        let pending = try await client.startLogin(LoginRequest(redirectURI: OIDCClientTests.redirectURI))
        #expect(Self.names(pending.url).contains("code_challenge") && Self.names(pending.url).contains("code_challenge_method"))
        #expect(observer.events(.pkceOmitted).isEmpty)
    }

    @Test("opted out: no code_challenge, an event per login with the provider's origin, and the login finishes without a verifier")
    func optedOut() async throws {
        let observer = RecordingObserver()
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        configuration.observer = observer
        configuration.optOutOfPKCE = true
        let (client, transport) = try OIDCClientTests.client(configuration: configuration)
        let pending = try await client.startLogin(LoginRequest(redirectURI: OIDCClientTests.redirectURI))
        #expect(!Self.names(pending.url).contains("code_challenge") && !Self.names(pending.url).contains("code_challenge_method"))
        #expect(pending.codeVerifier == nil)
        let events = observer.events(.pkceOmitted)
        #expect(events.count == 1 && events.first?.origin == "https://op.example.com")
        OIDCClientTests.tokens(transport, idToken: try OIDCClientTests.idToken([("nonce", .string(try #require(pending.nonce).value))]))
        let login = try await client.finishLogin(pending, callback: .url(OIDCClientTests.callback(pending)))
        #expect(login.idToken.subject == "alice")
    }

    @Test("opted out with a pushed request: the PAR form carries no code_challenge")
    func optedOutPushed() async throws {
        var configuration = OIDCClient.Configuration(clock: TestClock().now)
        configuration.optOutOfPKCE = true
        let transport = OIDCClientAssertionTypeTests.transport()
        let client = try OIDCClient(
            metadata: OIDCClientAssertionTypeTests.metadata(),
            authentication: .clientSecretBasic(clientID: F.clientID, secret: "s3cret-s3cret-s3cret-s3cret-s3cret!"),
            transport: transport, configuration: configuration)
        _ = try await client.startLogin(LoginRequest(redirectURI: OIDCClientTests.redirectURI, push: .always))
        let form = formFields(try #require(transport.requests.first))
        #expect(form["response_type"] == "code" && form["code_challenge"] == nil && form["code_challenge_method"] == nil)
    }

    @Test("the FAPI 2.0 profile refuses the opt-out when the client is made (fapi_pkce_s256_required)")
    func refusedUnderFAPI() throws {
        var configuration = try OIDCClientFAPITests.configuration()
        configuration.optOutOfPKCE = true
        let error = #expect(throws: OIDCError.self) {
            _ = try OIDCClient(
                metadata: OIDCClientFAPITests.metadata(), authentication: try OIDCClientFAPITests.authentication(),
                transport: CannedTransport(status: 500, body: ""), configuration: configuration)
        }
        #expect(error?.code == .fapiPKCERequired)
    }
}
