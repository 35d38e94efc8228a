import Foundation
import JOSE
import OIDC
import OIDCNetworking
import Testing

/// DPoP nonce challenges (which glewlwyd 2.7.5 does not send), CIBA and the device
/// grant over real HTTP against Tests/Support/fapi_server.py on 127.0.0.1; the
/// polls wait through a recording sleeper, so they run at once.
@Suite(
    "Scripted server: DPoP nonce challenges, CIBA and device polling over HTTP",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct ScriptedDPoPServerTests {
    func client(_ server: FaultServer, dpop: DPoPBinding? = nil) throws -> TokenClient {
        try TokenClient(
            tokenEndpoint: server.url("/token"), issuer: server.base, authentication: .none(clientID: "app"),
            transport: URLSessionTransport(), dpop: dpop)
    }

    func stats(_ server: FaultServer) async throws -> [String: Int] {
        let response = try await URLSessionTransport().send(TransportRequest(url: server.url("/stats")))
        var counts: [String: Int] = [:]
        for member in try JSONParser.parseObject(response.body, what: "stats") { counts[member.name] = member.value.int64Value.map { Int($0) } }
        return counts
    }

    static let instant = PollingSleeper { _ in }

    @Test("authorization server: use_dpop_nonce answered with exactly one retry; the rotated nonce of the answer is used next time")
    func authorizationServerNonce() async throws {
        let server = try await FaultServer.start(script: "fapi_server.py")
        defer { server.stop() }
        let dpop = DPoPBinding(key: try DPoPKey.generate())
        let client = try client(server, dpop: dpop)
        let first = try await client.requestTokens([("grant_type", "client_credentials")], rule: .strict)
        #expect(first.tokenType == "DPoP")
        #expect(try await stats(server)["/token"] == 2)
        let second = try await client.requestTokens([("grant_type", "client_credentials")], rule: .strict)
        #expect(second.accessToken != first.accessToken)
        #expect(try await stats(server)["/token"] == 3, "no second challenge: the nonce from the last answer was sent")
    }

    @Test("resource server: 401 use_dpop_nonce answered with one retry carrying ath and the nonce; remembered per origin")
    func resourceServerNonce() async throws {
        let server = try await FaultServer.start(script: "fapi_server.py")
        defer { server.stop() }
        let dpop = DPoPBinding(key: try DPoPKey.generate(.ed25519))
        let tokens = try await client(server, dpop: dpop).requestTokens([("grant_type", "client_credentials")], rule: .strict)
        let transport = URLSessionTransport()
        for expected in [2, 3] {
            let response = try await dpop.send(role: .resourceServer, accessToken: tokens.accessToken, transport: transport) {
                TransportRequest(url: server.url("/resource?page=1"))
            }
            #expect(response.status == 200)
            #expect(try await stats(server)["/resource"] == expected)
        }
        // A token the server never issued: 401 invalid_token, no retry.
        let refused = try await dpop.send(role: .resourceServer, accessToken: "forged", transport: transport) { TransportRequest(url: server.url("/resource")) }
        #expect(refused.status == 401)
        #expect(try await stats(server)["/resource"] == 4)
    }

    @Test("CIBA over HTTP: pending, slow_down (+5 s), pending, tokens; and a denial", arguments: ["approve", "deny"])
    func ciba(_ hint: String) async throws {
        let server = try await FaultServer.start(script: "fapi_server.py")
        defer { server.stop() }
        let client = try client(server, dpop: DPoPBinding(key: try DPoPKey.generate()))
        let started = try await client.startBackchannelAuthentication(.init(hint: .loginHint(hint)), endpoint: server.url("/ciba"))
        let waits = Locked([Int]())
        let sleeper = PollingSleeper { seconds in waits.withLock { $0.append(seconds) } }
        let outcome = try await client.pollBackchannelAuthentication(started, sleeper: sleeper)
        switch (outcome, hint) {
        case (.granted(let tokens), "approve"):
            #expect(tokens.tokenType == "DPoP")
            #expect(waits.withLock { $0 } == [1, 1, 6, 6])
        case (.denied(let error), "deny"):
            #expect(error.error == "access_denied")
        default:
            Issue.record("unexpected \(outcome) for \(hint)")
        }
    }

    @Test("device grant over HTTP: pending, then tokens")
    func device() async throws {
        let server = try await FaultServer.start(script: "fapi_server.py")
        defer { server.stop() }
        let client = try client(server, dpop: DPoPBinding(key: try DPoPKey.generate()))
        let started = try await client.requestDeviceAuthorization(scope: "openid", endpoint: server.url("/device"))
        #expect(started.userCode == "ABCD-EFGH")
        let outcome = try await client.pollDeviceAuthorization(started, sleeper: Self.instant)
        guard case .granted = outcome else { Issue.record("expected tokens, got \(outcome)"); return }
    }
}
