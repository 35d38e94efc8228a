import Foundation
import JOSE
import Testing

/// `--as access-token` judges a DPoP-bound token (cnf.jkt, RFC 9449 §6.1) as a resource server must:
/// without `--dpop-proof` it is a Bearer presentation and INVALID; with one, the library's one call
/// checks the proof against the token (key thumbprint = cnf.jkt, ath, htm, htu).
@Suite("jwt-inspect --as access-token with a DPoP-bound token")
struct CLIAccessTokenDPoPTests {
    static let now = Tokens.now
    static let issuer = "https://as.example"
    static let audience = "https://api.example"

    static func token(cnf: JSONValue?) throws -> String {
        var claims: JSONObject = [
            "iss": .string(issuer), "aud": .string(audience), "sub": "alice", "client_id": "c1",
            "iat": .integer(now - 10), "exp": .integer(now + 300), "jti": "j-1", "scope": "read write",
        ]
        if let cnf { claims["cnf"] = cnf }
        return try JWT.sign(claims, key: try Tokens.key("p256.pem"), algorithm: .es256, header: ["typ": "at+jwt"])
    }

    static func proof(key: JWK, token: String, htm: String = "GET", htu: String = "https://api.example/items") throws -> String {
        let ath = Base64URL.encode(DigestAlgorithm.sha256.hash(Array(token.utf8)))
        return try JWT.sign(
            ["jti": "p-1", "htm": .string(htm), "htu": .string(htu), "iat": .integer(now - 2), "ath": .string(ath)],
            key: key, algorithm: .es256, header: ["typ": "dpop+jwt", "jwk": .object(key.publicJWK)])
    }

    static func run(_ token: String, _ extra: [String]) async throws -> (status: Int32, line: [String: Any]?, stderr: String) {
        let run = try await CLI.run(
            [
                "--json", "--now", "\(now)", "--key", "Keys/p256.pub.pem", "--as", "access-token",
                "--iss", issuer, "--aud", audience,
            ] + extra + [token])
        let checks = run.json?["checks"] as? [[String: Any]] ?? []
        return (run.status, checks.first { $0["name"] as? String == "access-token" }, run.stderr)
    }

    @Test("a cnf.jkt-bound token without --dpop-proof is INVALID (was valid): presented as Bearer")
    func boundWithoutProof() async throws {
        let key = try JWK.generate(.ec(.p256))
        let result = try await Self.run(try Self.token(cnf: .object(["jkt": .string(key.thumbprint())])), [])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.line?["status"] as? String == "fail")
        #expect(result.line?["reason"] as? String == "dpop_bound_token_as_bearer", "\(result.line ?? [:])")
        // An unbound token is still valid as before.
        await #expect(try Self.run(try Self.token(cnf: nil), []).status == 0)
    }

    @Test("with --dpop-proof: the bound key's proof passes; another key, another ath, htm or htu, an unbound token fail")
    func withProof() async throws {
        let key = try JWK.generate(.ec(.p256))
        let token = try Self.token(cnf: .object(["jkt": .string(key.thumbprint())]))
        let request = ["--htm", "GET", "--htu", "https://API.example:443/items?x=1"]
        let valid = try await Self.run(token, ["--dpop-proof", try Self.proof(key: key, token: token)] + request)
        #expect(valid.status == 0, "\(valid.stderr) \(valid.line ?? [:])")
        #expect(valid.line?["status"] as? String == "pass")
        let attacker = try JWK.generate(.ec(.p256))
        let cases: [(String, String)] = [
            (try Self.proof(key: attacker, token: token), "dpop_proof_jkt"),
            (try Self.proof(key: key, token: "another token"), "dpop_proof_ath"),
            (try Self.proof(key: key, token: token, htm: "POST"), "dpop_proof_htm"),
            (try Self.proof(key: key, token: token, htu: "https://api.example/other"), "dpop_proof_htu"),
        ]
        for (proof, reason) in cases {
            let result = try await Self.run(token, ["--dpop-proof", proof] + request)
            #expect(result.status == 1 && result.line?["reason"] as? String == reason, "\(reason): \(result.line ?? [:])")
        }
        let unbound = try Self.token(cnf: nil)
        let notBound = try await Self.run(unbound, ["--dpop-proof", try Self.proof(key: key, token: unbound)] + request)
        #expect(notBound.status == 1 && notBound.line?["reason"] as? String == "dpop_token_not_bound", "\(notBound.line ?? [:])")
        // --dpop-proof needs the request it was made for.
        await #expect(try Self.run(token, ["--dpop-proof", try Self.proof(key: key, token: token)]).status == 2)
    }
}
