import Foundation
import Testing

/// `jwt-inspect` and RFC 9864's fully-specified `Ed25519`: `sign --alg Ed25519` and keys generated with
/// `--alg Ed25519` emit it, the verifier accepts it, and an Ed448 token never verifies with such a key.
@Suite("jwt-inspect: fully-specified Ed25519 (RFC 9864)")
struct CLIFullySpecifiedAlgorithmTests {
    static func header(_ token: String) throws -> [String: Any] {
        let part = String(try #require(token.split(separator: ".").first))
        let padded =
            part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            + String(repeating: "=", count: (4 - part.count % 4) % 4)
        let data = try #require(Data(base64Encoded: padded))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("sign --alg Ed25519 writes alg Ed25519; the token verifies with the public key, also under --alg Ed25519")
    func signWithAlg() async throws {
        let signed = try await CLI.run(["sign", "--alg", "Ed25519", "--key", "Keys/ed25519.jwk", "--claim", "sub=alice", "--exp", "+5m"])
        try #require(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try Self.header(token)["alg"] as? String == "Ed25519")
        let verified = try await CLI.run(["--json", "--alg", "Ed25519", "--key", "Keys/ed25519.pub.pem", token])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.result == "valid")
        // An allow-list of EdDSA alone does not take the fully-specified name.
        let refused = try await CLI.run(["--json", "--alg", "EdDSA", "--key", "Keys/ed25519.pub.pem", token])
        #expect(refused.status == 1)
    }

    @Test("key --kty OKP --crv Ed25519 --alg Ed25519: the key says Ed25519, sign uses it by default, Ed448 tokens never verify")
    func generatedKey() async throws {
        let directory = try External.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("k.jwk").path
        let made = try await CLI.run(["key", "--kty", "OKP", "--crv", "Ed25519", "--alg", "Ed25519", "--out", path])
        try #require(made.status == 0, "\(made.stderr)")
        let publicPath = directory.appendingPathComponent("k.pub.jwk")
        let publicJWK = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: publicPath)) as? [String: Any])
        #expect(publicJWK["alg"] as? String == "Ed25519")
        #expect(publicJWK["crv"] as? String == "Ed25519")

        let signed = try await CLI.run(["sign", "--key", path, "--claim", "sub=bob"])
        try #require(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try Self.header(token)["alg"] as? String == "Ed25519")
        let verified = try await CLI.run(["--json", "--key", publicPath.path, token])
        #expect(verified.status == 0, "\(verified.stderr)")

        // Ed448 tokens from Python cryptography (alg Ed448, and EdDSA over an Ed448 key): refused.
        let vectors = CLI.repository.appendingPathComponent("Tests/JOSETests/Fixtures/interop/vectors_2026.json")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: vectors)) as? [String: Any])
        let tokens = try #require((root["ed448"] as? [String: Any])?["tokens"] as? [String: String])
        for (alg, ed448) in tokens.sorted(by: { $0.key < $1.key }) {
            let run = try await CLI.run(["--json", "--key", publicPath.path, ed448])
            #expect(run.status == 1, "\(alg): \(run.stdout)")
            #expect(run.result != "valid")
        }
    }
}
