import Foundation
import JOSE
import OIDC
import OIDCNetworking
import Testing

/// Issue 36 at a running server: `sample-bearer-server` keeps one `InMemoryReplayCache` (the defaults:
/// 100 000 identifiers, 10 000 per scope) for DPoP proofs and logout tokens. A client flooding fresh
/// proofs of its own key, with its own valid bound token, fills only that key's share: it is refused
/// `replay_cache_full` once the share is full, while another client's fresh proof and a never-seen
/// logout token are accepted. The issuer is the scripted provider (Tests/Support/profile_provider.py,
/// okta profile: RS256 key `sig-1` = Keys/rsa2048.pem), so the test signs the tokens it presents.
@Suite(
    "sample-bearer-server: a DPoP flood from one key fills only its share", .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct ReplayFloodSampleTests {
    /// The sample's per-key share (InMemoryReplayCache's default).
    static let share = 10_000
    static let audience = "https://api.example"

    static func signingKey() throws -> JWK {
        try JWK(pem: String(contentsOf: Provider.repository.appendingPathComponent("Keys/rsa2048.pem"), encoding: .utf8))
    }

    /// An RFC 9068 access token from `issuer` bound to `key` (cnf.jkt).
    static func boundToken(issuer: String, client: String, key: DPoPKey) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims: JSONObject = [
            "iss": .string(issuer), "aud": .string(audience), "sub": .string(client), "client_id": .string(client),
            "iat": .integer(now), "exp": .integer(now + 3600), "jti": .string(UUID().uuidString), "scope": "api.read",
            "cnf": .object(["jkt": .string(key.thumbprint)]),
        ]
        return try JWT.sign(claims, key: try signingKey(), algorithm: .rs256, header: ["typ": "at+jwt", "kid": "sig-1"])
    }

    static func logoutToken(issuer: String, clientID: String) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims: JSONObject = [
            "iss": .string(issuer), "aud": .string(clientID), "iat": .integer(now), "exp": .integer(now + 120),
            "jti": .string(UUID().uuidString), "sub": "alice", "sid": "session-1",
            "events": .object(["http://schemas.openid.net/event/backchannel-logout": .object([:])]),
        ]
        return try JWT.sign(claims, key: try signingKey(), algorithm: .rs256, header: ["typ": "logout+jwt", "kid": "sig-1"])
    }

    @Test(
        "10 005 proofs of one key with its bound token: 10 000 accepted, then replay_cache_full; another client's fresh proof and a never-seen logout token accepted"
    )
    func floodAtSample() async throws {
        let provider = try await ScriptedProfileProvider("okta")
        defer { provider.stop() }
        let issuer = provider.base + "/oauth2/default"
        let flood = Self.share + 5
        let port = try RunningSample.freePort()
        let server = try await RunningSample(
            "sample-bearer-server",
            [
                "--issuer", issuer, "--audience", Self.audience, "--port", "\(port)",
                "--logout-client-id", "rp", "--requests", "\(flood + 5)",
            ])
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/api/items"))
        let transport = URLSessionTransport()
        func call(_ key: DPoPKey, _ token: String, proof: String? = nil) async throws -> (status: Int, challenge: String) {
            let headers: HeaderFields = ["Authorization": "DPoP " + token, "DPoP": try proof ?? key.proof(method: "GET", url: url, accessToken: token)]
            let response = try await transport.send(TransportRequest(url: url, headers: headers))
            return (response.status, response.headers.values(for: "WWW-Authenticate").first ?? "")
        }

        // The flood: fresh proofs of the attacker's own key, with its own valid bound token, four at a time.
        let attacker = try DPoPKey.generate()
        let attackerToken = try Self.boundToken(issuer: issuer, client: "attacker", key: attacker)
        let answers = try await withThrowingTaskGroup(of: [(Int, String)].self) { group in
            for lane in 0..<4 {
                group.addTask {
                    var answers: [(Int, String)] = []
                    for _ in stride(from: lane, to: flood, by: 4) { answers.append(try await call(attacker, attackerToken)) }
                    return answers
                }
            }
            return try await group.reduce(into: [(Int, String)]()) { $0 += $1 }
        }
        #expect(answers.count == flood)
        #expect(answers.filter { $0.0 == 200 }.count == Self.share, "the key's share, and no more, was accepted")
        let refused = answers.filter { $0.0 != 200 }
        #expect(
            refused.count == 5 && refused.allSatisfy { $0.0 == 401 && $0.1.hasPrefix("DPoP error=\"invalid_dpop_proof\"") && $0.1.contains("full") },
            "\(refused.prefix(2))")
        #expect(!refused.contains { $0.1.contains("already received") }, "a full share is never reported as a replay")

        // Another client: its own key and bound token; its fresh proof passes, a replay of it does not.
        let honest = try DPoPKey.generate()
        let honestToken = try Self.boundToken(issuer: issuer, client: "honest", key: honest)
        let proof = try honest.proof(method: "GET", url: url, accessToken: honestToken)
        let accepted = try await call(honest, honestToken, proof: proof)
        #expect(accepted.status == 200, "\(accepted)")
        let replayed = try await call(honest, honestToken, proof: proof)
        #expect(replayed.status == 401 && replayed.challenge.contains("already received"), "\(replayed)")

        // A never-seen logout token from the issuer: accepted; sent again: replayed_logout_token.
        let logoutURL = try #require(URL(string: "http://127.0.0.1:\(port)/backchannel-logout"))
        let token = try Self.logoutToken(issuer: issuer, clientID: "rp")
        func logout() async throws -> (Int, JSONObject) {
            let response = try await transport.send(
                TransportRequest(
                    method: .post, url: logoutURL,
                    headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: .bytes(Array("logout_token=\(token)".utf8))))
            return (response.status, try JSONParser.parseObject(response.body, what: "sample answer"))
        }
        let (status, body) = try await logout()
        #expect(status == 200 && body["sub"]?.stringValue == "alice" && body["sid"]?.stringValue == "session-1", "\(status) \(body)")
        let (againStatus, againBody) = try await logout()
        #expect(againStatus == 400 && againBody["error"]?.stringValue == "replayed_logout_token", "\(againStatus) \(againBody)")
    }
}
