import Foundation
import JOSE
import Testing

/// RFC 8725bis explicit typing, through the library's own validators (`--as KIND`): a token of one kind never
/// validates as another, and `typ` is compared as RFC 7515 §4.1.9 says (ASCII case-insensitive, `application/`
/// implied when the value has no `/`), the same way for every kind.
@Suite("jwt-inspect: no cross-kind confusion (RFC 8725bis)")
struct CLICrossKindTests {
    static let kinds = ["id-token", "access-token", "logout-token", "dpop-proof"]
    static let now = CLITokenKindTests.now
    static let htu = "https://api.example/resource"

    /// A valid token of `kind` (its own typ unless `typ` is given), signed with Keys/p256.
    static func token(_ kind: String, typ: String? = nil) throws -> String {
        let key = try Tokens.key("p256.pem")
        if kind == "dpop-proof" {
            var jwk = key.publicKey.publicJWK
            jwk["kid"] = nil
            let claims: JSONObject = ["htm": "GET", "htu": .string(htu), "iat": .integer(now), "jti": "p-1"]
            return try JWT.sign(claims, key: key, algorithm: .es256, header: ["typ": .string(typ ?? "dpop+jwt"), "jwk": .object(jwk)])
        }
        return try JWT.sign(
            CLITokenKindTests.claims(kind), key: key, algorithm: .es256, header: ["typ": .string(typ ?? CLITokenKindTests.type(kind))])
    }

    /// `jwt-inspect --as kind` with everything that kind's validator needs; the kind's check line.
    static func judge(_ token: String, as kind: String) async throws -> (status: Int32, line: [String: Any]) {
        var arguments = ["--json", "--now", "\(now)", "--as", kind]
        switch kind {
        case "dpop-proof": arguments += ["--htm", "GET", "--htu", htu]
        default:
            arguments += ["--key", "Keys/p256.pub.pem", "--iss", CLITokenKindTests.issuer, "--aud", CLITokenKindTests.audience(kind)]
            if kind == "id-token" { arguments += ["--nonce", "n-1"] }
        }
        let run = try await CLI.run(arguments + [token])
        let checks = run.json?["checks"] as? [[String: Any]] ?? []
        let line = try #require(checks.first { $0["name"] as? String == kind }, "no \(kind) line: \(run.stdout) \(run.stderr)")
        return (run.status, line)
    }

    @Test("each kind's token passes its own validator and fails every other one", arguments: kinds)
    func matrix(_ tokenKind: String) async throws {
        let token = try Self.token(tokenKind)
        for validator in Self.kinds {
            let (status, line) = try await Self.judge(token, as: validator)
            if validator == tokenKind {
                #expect(status == 0 && line["status"] as? String == "pass", "\(tokenKind) as \(validator): \(line)")
            } else {
                #expect(status == 1 && line["status"] as? String == "fail", "\(tokenKind) as \(validator) must fail: \(line)")
            }
        }
    }

    /// typ spellings each kind's validator must take (RFC 7515 §4.1.9) or refuse.
    static let spellings: [(String, String, Bool)] = [
        ("access-token", "application/at+jwt", true), ("access-token", "AT+JWT", true), ("access-token", "Application/At+Jwt", true),
        ("access-token", "at+jwt ", false), ("access-token", "text/at+jwt", false), ("access-token", "at+jwt;v=1", false),
        ("logout-token", "application/logout+jwt", true), ("logout-token", "LOGOUT+JWT", true), ("logout-token", "x-logout+jwt", false),
        ("dpop-proof", "application/dpop+jwt", true), ("dpop-proof", "DPoP+JWT", true), ("dpop-proof", "dpop+jwt2", false),
        ("dpop-proof", "application/at+jwt", false),
        ("id-token", "application/at+jwt", false), ("id-token", "Logout+JWT", false), ("id-token", "application/dpop+jwt", false),
        ("id-token", "JWT", true), ("id-token", "application/jwt", true), ("id-token", "oauth-authz-req+jwt", false),
        ("id-token", "client-authentication+jwt", false), ("id-token", "kb+jwt", false), ("id-token", "secevent+jwt", false),
        ("id-token", "token-introspection+jwt", false), ("id-token", "entity-statement+jwt", false), ("id-token", "statuslist+jwt", false),
    ]

    @Test("typ compares ASCII case-insensitively with application/ optional, for every kind", arguments: spellings.map { "\($0.0)|\($0.1)|\($0.2)" })
    func typSpelling(_ row: String) async throws {
        let parts = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        let (kind, typ, accepted) = (parts[0], parts[1], parts[2] == "true")
        let (status, line) = try await Self.judge(try Self.token(kind, typ: typ), as: kind)
        if accepted {
            #expect(status == 0 && line["status"] as? String == "pass", "\(kind) typ \(typ.debugDescription): \(line)")
        } else {
            #expect(status == 1 && line["status"] as? String == "fail", "\(kind) typ \(typ.debugDescription): \(line)")
        }
    }
}
