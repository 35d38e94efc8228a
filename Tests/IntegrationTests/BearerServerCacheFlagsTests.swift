import Foundation
import JOSE
import OIDC
import OIDCNetworking
import Testing

/// Issue 33 at a running `sample-bearer-server`: `--verified-token-cache N`, `--verified-token-max-age SECONDS` and
/// `--leeway SECONDS`. The issuer is the scripted provider (okta profile: RS256 key `sig-1` = Keys/rsa2048.pem).
@Suite(
    "sample-bearer-server: verified-token cache and leeway flags", .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct BearerServerCacheFlagsTests {
    static let audience = "https://api.example"

    /// An RFC 9068 access token from `issuer` that expired `expiredAgo` seconds ago (negative: still valid).
    static func token(issuer: String, expiredAgo: Int64) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims: JSONObject = [
            "iss": .string(issuer), "aud": .string(audience), "sub": "alice", "client_id": "app",
            "iat": .integer(now - 600), "exp": .integer(now - expiredAgo), "jti": .string(UUID().uuidString), "scope": "api.read",
        ]
        let key = try JWK(pem: String(contentsOf: Provider.repository.appendingPathComponent("Keys/rsa2048.pem"), encoding: .utf8))
        return try JWT.sign(claims, key: key, algorithm: .rs256, header: ["typ": "at+jwt", "kid": "sig-1"])
    }

    @Test("bad values are usage errors (exit 2), and the usage line names the library's default")
    func usage() async throws {
        for (flag, value) in [("--verified-token-cache", "-1"), ("--verified-token-max-age", "0"), ("--leeway", "soon")] {
            let result = try await SampleRunner.run(
                "sample-bearer-server", ["--issuer", "https://as.example", "--audience", Self.audience, "--port", "1", flag, value])
            #expect(result.status == 2, "\(flag) \(value): \(result.error)")
            #expect(result.error.contains(flag), "\(result.error)")
            #expect(result.error.contains("--verified-token-cache N (default 10000; 0: off)"), "\(result.error)")
        }
    }

    @Test("--leeway: a token expired 30 s ago passes with the default 60 s, not with --leeway 0; the cache on, off or short")
    func leeway() async throws {
        let provider = try await ScriptedProfileProvider("okta")
        defer { provider.stop() }
        let issuer = provider.base + "/oauth2/default"
        let transport = URLSessionTransport()
        func status(_ arguments: [String], _ token: String, times: Int = 2) async throws -> [Int] {
            let port = try RunningSample.freePort()
            let server = try await RunningSample(
                "sample-bearer-server", ["--issuer", issuer, "--audience", Self.audience, "--port", "\(port)", "--requests", "\(times)"] + arguments)
            defer { server.stop() }
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/api/items"))
            var statuses: [Int] = []
            for _ in 0..<times {
                statuses.append(try await transport.send(TransportRequest(url: url, headers: ["Authorization": "Bearer " + token])).status)
            }
            return statuses
        }
        let late = try Self.token(issuer: issuer, expiredAgo: 30)
        #expect(try await status([], late) == [200, 200])
        #expect(try await status(["--leeway", "0"], late) == [401, 401])
        #expect(try await status(["--leeway", "0", "--verified-token-cache", "0"], late) == [401, 401])
        let current = try Self.token(issuer: issuer, expiredAgo: -600)
        #expect(try await status(["--verified-token-cache", "0"], current) == [200, 200])
        #expect(try await status(["--verified-token-cache", "5", "--verified-token-max-age", "1"], current) == [200, 200])
    }
}
