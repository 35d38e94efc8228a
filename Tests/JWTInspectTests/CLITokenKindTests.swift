import Foundation
import JOSE
import Testing

/// `--as KIND`: the library's validator for each kind, valid and broken one rule at a time.
@Suite("jwt-inspect --as")
struct CLITokenKindTests {
    static let issuer = "https://issuer.example"
    static let now = Tokens.now

    static func claims(_ kind: String) -> JSONObject {
        switch kind {
        case "access-token":
            return [
                "iss": .string(issuer), "aud": "https://api.example", "sub": "alice", "client_id": "c1",
                "iat": .integer(now - 10), "exp": .integer(now + 300), "jti": "j-1", "scope": "read write",
            ]
        case "logout-token":
            return [
                "iss": .string(issuer), "aud": "client-1", "sub": "alice", "iat": .integer(now - 10), "exp": .integer(now + 110), "jti": "l-1",
                "events": .object(["http://schemas.openid.net/event/backchannel-logout": .object(JSONObject())]),
            ]
        default:
            return [
                "iss": .string(issuer), "aud": "client-1", "sub": "alice", "iat": .integer(now - 10),
                "exp": .integer(now + 300), "nonce": "n-1",
            ]
        }
    }

    static func type(_ kind: String) -> String {
        ["access-token": "at+jwt", "logout-token": "logout+jwt"][kind] ?? "JWT"
    }

    static func audience(_ kind: String) -> String { kind == "access-token" ? "https://api.example" : "client-1" }

    /// kind, what is broken (claim name = value, "-claim" removes it, "typ=..." changes the header), reason of the kind's line.
    static let cases: [(String, String, String?)] = [
        ("access-token", "", nil),
        ("access-token", "typ=JWT", "unexpected_token_type"),
        ("access-token", "iss=https://other.example", "issuer_mismatch"),
        ("access-token", "aud=https://other-api.example", "audience_mismatch"),
        ("access-token", "-client_id", "missing_access_token_claim"),
        ("access-token", "-jti", "missing_access_token_claim"),
        ("access-token", "-exp", "missing_access_token_claim"),
        ("access-token", "exp=1799990000", "expired"),
        ("access-token", "scope=write", "insufficient_scope"),
        ("id-token", "", nil),
        ("id-token", "iss=https://other.example", "issuer_mismatch"),
        ("id-token", "aud=client-2", "audience_mismatch"),
        ("id-token", "nonce=n-2", "nonce_mismatch"),
        ("id-token", "-sub", "missing_subject"),
        ("id-token", "exp=1799990000", "expired"),
        ("id-token", "typ=at+jwt", "invalid_id_token_header"),
        ("logout-token", "", nil),
        ("logout-token", "nonce=n-1", "invalid_logout_token"),
        // A missing required logout claim has the logout token's own code, not the access token's.
        ("logout-token", "-events", "missing_logout_token_claim"),
        ("logout-token", "-jti", "missing_logout_token_claim"),
        ("logout-token", "-exp", "invalid_logout_token"),  // exp is required by Back-Channel Logout 1.0 §2.4
        ("logout-token", "iat=1799990000", "invalid_logout_token"),
        ("logout-token", "aud=client-2", "audience_mismatch"),
        ("logout-token", "typ=JWT", "unexpected_token_type"),
    ]

    @Test("valid, then each rule broken alone", arguments: cases.map { "\($0.0)|\($0.1)|\($0.2 ?? "")" })
    func kinds(_ row: String) async throws {
        let parts = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        let (kind, broken, reason) = (parts[0], parts[1], parts[2].isEmpty ? nil : parts[2])
        var claims = Self.claims(kind)
        var typ = Self.type(kind)
        if broken.hasPrefix("typ=") {
            typ = String(broken.dropFirst(4))
        } else if broken.hasPrefix("-") {
            claims = JSONObject(claims.filter { $0.name != String(broken.dropFirst()) }.map { ($0.name, $0.value) })
        } else if let equals = broken.firstIndex(of: "=") {
            let value = String(broken[broken.index(after: equals)...])
            claims[String(broken[..<equals])] = Int64(value).map { .integer($0) } ?? .string(value)
        }
        let token = try JWT.sign(claims, key: try Tokens.key("p256.pem"), algorithm: .es256, header: ["typ": .string(typ)])
        var arguments = [
            "--json", "--now", "\(Self.now)", "--key", "Keys/p256.pub.pem", "--as", kind,
            "--iss", Self.issuer, "--aud", Self.audience(kind),
        ]
        if kind == "access-token" { arguments += ["--require-scope", "read"] }
        if kind == "id-token" { arguments += ["--nonce", "n-1"] }
        let run = try await CLI.run(arguments + [token])
        let checks = run.json?["checks"] as? [[String: Any]] ?? []
        let line = try #require(checks.first { $0["name"] as? String == kind }, "no \(kind) line: \(run.stdout) \(run.stderr)")
        if let reason {
            #expect(run.status == 1)
            #expect(line["status"] as? String == "fail")
            #expect(line["reason"] as? String == reason, "\(line)")
        } else {
            #expect(run.status == 0, "\(run.stderr)")
            #expect(line["status"] as? String == "pass")
            #expect(run.result == "valid")
        }
    }

    @Test("the human view names the rules that passed")
    func humanRules() async throws {
        let token = try JWT.sign(Self.claims("access-token"), key: try Tokens.key("p256.pem"), algorithm: .es256, header: ["typ": "at+jwt"])
        let run = try await CLI.run([
            "--now", "\(Self.now)", "--key", "Keys/p256.pub.pem", "--as", "access-token", "--iss", Self.issuer,
            "--aud", "https://api.example", "--require-scope", "read", token,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.contains(
                "access-token RFC 9068: signature (asymmetric), exp/nbf/iat, typ at+jwt, iss, aud, sub, client_id, iat, jti, scope read: passed"))
    }

    @Test(
        "without --as the kind is guessed from typ and said to be a guess",
        arguments: ["at+jwt access-token", "logout+jwt logout-token", "application/AT+JWT access-token"])
    func guess(_ row: String) async throws {
        let parts = row.split(separator: " ").map(String.init)
        let token = try JWT.sign(["sub": "x"], key: try Tokens.key("p256.pem"), algorithm: .es256, header: ["typ": .string(parts[0])])
        let run = try await CLI.run([token])
        #expect(run.stdout.contains("typ says \(parts[1]) (a guess from typ: judge it with --as \(parts[1]))"), "\(run.stdout)")
    }

    @Test(
        "--as refusals: exit 2",
        arguments: [
            ("--as access-token", "needs a key"), ("--as refresh-token --key Keys/p256.pub.pem", "--as takes"),
            ("--as access-token --key Keys/p256.pub.pem --iss https://issuer.example", "--aud"),
            ("--as dpop-proof --htm GET", "needs --htm (the request method) and --htu"),
            ("--as dpop-proof --htm GET --htu /relative", "--htu needs an absolute http(s) URL"),
        ])
    func refusals(_ row: (String, String)) async throws {
        let token = try JWT.sign(Self.claims("access-token"), key: try Tokens.key("p256.pem"), algorithm: .es256, header: ["typ": "at+jwt"])
        let run = try await CLI.run(row.0.split(separator: " ").map(String.init) + [token])
        #expect(run.status == 2)
        #expect(run.stderr.contains(row.1), "\(run.stderr)")
    }
}
