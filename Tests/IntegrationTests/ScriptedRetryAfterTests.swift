import Foundation
import JOSE
import OIDC
import OIDCNetworking
import Testing

/// Retry-After during CIBA polling over real HTTP, through `OIDCClient`: Tests/Support/retry_after_server.py
/// answers the first poll with 503 (or 429) and `Retry-After`, records when each poll arrives, and refuses the
/// second one (`access_denied`), so the test reads the interval between the two polls from the server's record.
@Suite(
    "Scripted server: Retry-After while polling CIBA over HTTP", .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct ScriptedRetryAfterTests {
    func client(_ server: FaultServer) throws -> OIDCClient {
        var metadata = ProviderMetadata(issuer: server.base)
        metadata.authorizationEndpoint = server.url("/authorize")
        metadata.tokenEndpoint = server.url("/token")
        metadata.jwksURI = server.url("/jwks")
        metadata.backchannelAuthenticationEndpoint = server.url("/ciba")
        return try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: "app", secret: "app-secret"), transport: URLSessionTransport())
    }

    /// The arrival times (seconds) of the polls for `id`.
    func arrivals(_ server: FaultServer, _ id: String) async throws -> [Double] {
        let response = try await URLSessionTransport().send(TransportRequest(url: server.url("/times")))
        let object = try JSONParser.parseObject(response.body, what: "times")
        return object[id]?.arrayValue?.compactMap(\.doubleValue) ?? []
    }

    @Test(
        "503 or 429 + Retry-After (2 s, or an HTTP date 3 s ahead) during CIBA polling: the next poll comes at least 2 s later",
        arguments: ["seconds", "limited", "date"])
    func nextPollWaits(_ script: String) async throws {
        let server = try await FaultServer.start(script: "retry_after_server.py")
        defer { server.stop() }
        let client = try client(server)
        let started = try await client.startBackchannelLogin(DecoupledAuthenticationRequest(hint: .loginHint(script)))
        let login = try await client.finishBackchannelLogin(started)
        guard case .denied(let error) = login else { Issue.record("expected the scripted denial, got \(login)"); return }
        #expect(error.error == "access_denied")
        let polls = try await arrivals(server, script)
        try #require(polls.count == 2, "\(polls)")
        #expect(polls[1] - polls[0] >= 2, "the second poll came \(polls[1] - polls[0]) s after the first")
    }

    @Test("an unreadable Retry-After ends the poll with invalid_decoupled_response; one past the expiry ends it as expired")
    func refusals() async throws {
        let server = try await FaultServer.start(script: "retry_after_server.py")
        defer { server.stop() }
        let client = try client(server)
        let bad = try await client.startBackchannelLogin(DecoupledAuthenticationRequest(hint: .loginHint("bad")))
        let error = await #expect(throws: OIDCError.self) { _ = try await client.finishBackchannelLogin(bad) }
        #expect(error?.code == .invalidDecoupledResponse)
        let long = try await client.startBackchannelLogin(DecoupledAuthenticationRequest(hint: .loginHint("long")))
        guard case .expired = try await client.finishBackchannelLogin(long) else { Issue.record("expected expired"); return }
        #expect(try await arrivals(server, "long").count == 1)
    }
}
