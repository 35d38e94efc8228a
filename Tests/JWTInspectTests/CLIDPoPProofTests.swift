import Foundation
import JOSE
import Testing

/// `--as dpop-proof`: OIDCResourceServer's `DPoPProofValidator` through the tool, valid and broken one rule at a time.
@Suite("jwt-inspect --as dpop-proof")
struct CLIDPoPProofTests {
    static let now = Tokens.now
    static let accessToken = "at-123"
    static var ath: String { Base64URL.encode(DigestAlgorithm.sha256.hash(Array(accessToken.utf8))) }

    /// A proof signed with Keys/p256.pem; `broken` changes one header member or claim.
    static func proof(_ broken: String) throws -> String {
        let key = try Tokens.key("p256.pem")
        var header: JSONObject = ["typ": "dpop+jwt", "jwk": .object(key.publicJWK)]
        var claims: JSONObject = [
            "jti": "j-1", "htm": "POST", "htu": "https://rs.example/api", "iat": .integer(now - 5),
            "ath": .string(ath), "nonce": "n-1",
        ]
        switch broken {
        case "": break
        case "-jwk": header = JSONObject(header.filter { $0.name != "jwk" }.map { ($0.name, $0.value) })
        case "jwk=private": header["jwk"] = .object(try key.privateJWK())
        case let text where text.hasPrefix("typ="): header["typ"] = .string(String(text.dropFirst(4)))
        default:
            let equals = try #require(broken.firstIndex(of: "="))
            let value = String(broken[broken.index(after: equals)...])
            claims[String(broken[..<equals])] = Int64(value).map { .integer($0) } ?? .string(value)
        }
        return try JWT.sign(claims, key: key, algorithm: .es256, header: header)
    }

    static let cases: [(String, String?)] = [
        ("", nil),
        ("htm=GET", "dpop_proof_htm"),
        ("htu=https://rs.example/other", "dpop_proof_htu"),
        ("ath=AAAA", "dpop_proof_ath"),
        ("typ=JWT", "dpop_proof_typ"),
        ("-jwk", "dpop_proof_jwk"),
        ("jwk=private", "dpop_proof_private_jwk"),
        ("iat=1799999000", "dpop_proof_iat"),
        ("nonce=n-2", "dpop_proof_nonce"),
    ]

    @Test("valid, then each rule broken alone", arguments: cases.map { "\($0.0)|\($0.1 ?? "")" })
    func rules(_ row: String) async throws {
        let parts = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        let (broken, reason) = (parts[0], parts[1].isEmpty ? nil : parts[1])
        let run = try await CLI.run([
            "--json", "--now", "\(Self.now)", "--as", "dpop-proof", "--htm", "POST", "--htu", "https://RS.example:443/api?q=1",
            "--ath", Self.ath, "--nonce", "n-1", try Self.proof(broken),
        ])
        let checks = run.json?["checks"] as? [[String: Any]] ?? []
        let line = try #require(checks.first { $0["name"] as? String == "dpop-proof" }, "no dpop-proof line: \(run.stdout) \(run.stderr)")
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
        let run = try await CLI.run([
            "--now", "\(Self.now)", "--as", "dpop-proof", "--htm", "POST", "--htu", "https://rs.example/api",
            "--ath", Self.ath, "--nonce", "n-1", try Self.proof(""),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.contains("dpop-proof RFC 9449 §4.3: typ dpop+jwt, alg asymmetric, jwk public only, signature, jti, htm, htu, iat, nonce, ath: passed"),
            "\(run.stdout)")
        #expect(run.stdout.contains("VALID: signature and all checks passed"), "\(run.stdout)")
    }

    @Test("without --as, typ dpop+jwt is guessed and judged by the validator")
    func guess() async throws {
        let valid = try await CLI.run(["--now", "\(Self.now)", try Self.proof("")])
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout.contains("typ says dpop-proof (a guess from typ"), "\(valid.stdout)")
        #expect(valid.stdout.contains("htm/htu not checked (no --htm/--htu)"), "\(valid.stdout)")
        let broken = try await CLI.run(["--now", "\(Self.now)", try Self.proof("jwk=private")])
        #expect(broken.status == 1)
        #expect(broken.stdout.contains("private member"), "\(broken.stdout)")
    }
}
