import Foundation
import Testing

/// `jwt-inspect key --kty ...` and private conversions, checked by Debian's `jose`
/// and Python's `cryptography` (skipped, and said so, when it is not installed).
@Suite("jwt-inspect key generation")
struct CLIKeyGenerationTests {
    static func json(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    /// Runs a Python script with `cryptography`; `false` when it is not installed.
    static func python(_ script: String, _ arguments: [String]) async throws -> Bool {
        guard External.hasCryptography, let python = External.python else { return false }
        let run = try await External.run(python, ["-c", script] + arguments)
        #expect(run.status == 0, "cryptography: \(run.stderr)")
        return true
    }

    /// The JWK's private key rebuilt by `cryptography` from its members, and checked
    /// against its public members (a mismatch raises).
    static let importJWK = """
        import base64, json, sys
        from cryptography.hazmat.primitives.asymmetric import ec, rsa, ed25519
        def b(s): return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
        def i(s): return int.from_bytes(b(s), "big")
        k = json.load(open(sys.argv[1]))
        if k["kty"] == "EC":
            curve = {"P-256": ec.SECP256R1(), "P-384": ec.SECP384R1(), "P-521": ec.SECP521R1()}[k["crv"]]
            pub = ec.derive_private_key(i(k["d"]), curve).public_key().public_numbers()
            assert (pub.x, pub.y) == (i(k["x"]), i(k["y"])), "EC public point"
        elif k["kty"] == "RSA":
            pub = rsa.RSAPublicNumbers(i(k["e"]), i(k["n"]))
            rsa.RSAPrivateNumbers(i(k["p"]), i(k["q"]), i(k["d"]), i(k["dp"]), i(k["dq"]), i(k["qi"]), pub).private_key()
        elif k["kty"] == "OKP":
            x = ed25519.Ed25519PrivateKey.from_private_bytes(b(k["d"])).public_key().public_bytes_raw()
            assert x == b(k["x"]), "Ed25519 public key"
        else:
            assert len(b(k["k"])) * 8 == int(sys.argv[2]), "oct size"
        """

    /// A private PEM and its public PEM loaded by `cryptography`, halves matching.
    static let importPEM = """
        import sys
        from cryptography.hazmat.primitives import serialization
        private = serialization.load_pem_private_key(open(sys.argv[1], "rb").read(), password=None)
        public = serialization.load_pem_public_key(open(sys.argv[2], "rb").read())
        raw = lambda k: k.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        assert raw(private.public_key()) == raw(public), "public half"
        """

    static let specs = ["EC P-256", "EC P-384", "EC P-521", "OKP Ed25519", "RSA 2048", "RSA 3072", "RSA 4096", "oct 256"]

    static func arguments(_ spec: String) -> [String] {
        let parts = spec.split(separator: " ").map(String.init)
        return ["--kty", parts[0]] + (Int(parts[1]) != nil ? ["--size", parts[1]] : ["--crv", parts[1]])
    }

    @Test("generate as JWK: files, thumbprint as kid, sign -> verify, jose and cryptography import it", arguments: specs)
    func generateJWK(_ spec: String) async throws {
        let directory = try External.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("k.jwk")
        let run = try await CLI.run(["key"] + Self.arguments(spec) + ["--out", out.path])
        try #require(run.status == 0, "\(run.stderr)")
        let privateKey = try Self.json(out)
        let mode = try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(privateKey["kty"] as? String == spec.split(separator: " ").first.map(String.init))
        #expect(privateKey["use"] as? String == "sig")
        let thumbprint = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("thumbprint:") }?.split(separator: " ").last.map(String.init))
        #expect(privateKey["kid"] as? String == thumbprint)
        let isSecret = spec.hasPrefix("oct")
        let publicURL = directory.appendingPathComponent("k.pub.jwk")
        #expect(FileManager.default.fileExists(atPath: publicURL.path) == !isSecret)
        var verifyWith = ["--key", out.path]
        if !isSecret {
            let publicKey = try Self.json(publicURL)
            #expect(publicKey["d"] == nil && publicKey["p"] == nil)
            if let expected = try await CLIKeyTests.thumbprint(publicKey) { #expect(thumbprint == expected) }
            verifyWith = ["--key", publicURL.path]
        } else if let expected = try await CLIKeyTests.thumbprint(privateKey) {
            #expect(thumbprint == expected)
        }
        // Sign with the new key, verify with its public half (or the secret).
        let signed = try await CLI.run(["sign", "--key", out.path, "--claim", "sub=new-key"])
        try #require(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let verified = try await CLI.run(["--json"] + verifyWith + [token])
        #expect(verified.status == 0 && verified.result == "valid", "\(verified.stderr)")

        if await !_checkedWithPython(out, spec) { print("cryptography not installed: the JWK import check was skipped") }
        // Debian's jose 11 has no OKP keys.
        if let jose = External.jose, !spec.hasPrefix("OKP") {
            if !isSecret {
                let pub = try await External.run(jose, ["jwk", "pub", "-i", out.path])
                #expect(pub.status == 0, "jose jwk pub: \(pub.stderr)")
                let fromJose = try #require(try JSONSerialization.jsonObject(with: Data(pub.stdout.utf8)) as? [String: Any])
                let ours = try Self.json(publicURL)
                for member in ["kty", "crv", "x", "y", "n", "e"] { #expect(fromJose[member] as? String == ours[member] as? String) }
            }
            let claims = directory.appendingPathComponent("claims.json")
            try Data(#"{"sub":"signed-by-jose"}"#.utf8).write(to: claims)
            let signedByJose = try await External.run(jose, ["jws", "sig", "-I", claims.path, "-k", out.path, "-c"])
            #expect(signedByJose.status == 0, "jose jws sig: \(signedByJose.stderr)")
            let check = try await CLI.run(["--json"] + verifyWith + [signedByJose.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
            #expect(check.status == 0 && check.result == "valid", "\(check.stdout) \(check.stderr)")
        }
    }

    func _checkedWithPython(_ url: URL, _ spec: String) async -> Bool {
        await (try? Self.python(Self.importJWK, [url.path, String(spec.split(separator: " ").last ?? "")])) ?? false
    }

    @Test(
        "generate as PEM: cryptography loads both halves; jwt-inspect verifies with the public PEM",
        arguments: ["EC P-384", "OKP Ed25519", "RSA 2048"])
    func generatePEM(_ spec: String) async throws {
        let directory = try External.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("k.pem")
        let run = try await CLI.run(["key"] + Self.arguments(spec) + ["--format", "pem", "--out", out.path])
        try #require(run.status == 0, "\(run.stderr)")
        let publicPath = directory.appendingPathComponent("k.pub.pem").path
        #expect(try String(contentsOf: out, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try String(contentsOfFile: publicPath, encoding: .utf8).hasPrefix("-----BEGIN PUBLIC KEY-----"))
        if await !(try Self.python(Self.importPEM, [out.path, publicPath])) { print("cryptography not installed: the PEM import check was skipped") }
        let signed = try await CLI.run(["sign", "--key", out.path, "--claim", "sub=pem"])
        try #require(signed.status == 0, "\(signed.stderr)")
        let verified = try await CLI.run(["--json", "--key", publicPath, signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    @Test("without --out: private key, public key and thumbprint on standard output")
    func standardOutput() async throws {
        let run = try await CLI.run(["key", "--kty", "EC", "--crv", "P-256"])
        try #require(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let privateKey = try #require(CLIKeyTests.object(lines[0]))
        let publicKey = try #require(CLIKeyTests.object(lines[1]))
        #expect(privateKey["d"] != nil && publicKey["d"] == nil)
        #expect(privateKey["x"] as? String == publicKey["x"] as? String)
        #expect(lines[2] == "thumbprint: \(privateKey["kid"] as? String ?? "?")")
    }

    @Test(
        "convert private keys: PEM -> JWK equals Keys/*.jwk; JWK -> PEM loads in cryptography",
        arguments: ["p256", "p521", "ed25519", "rsa2048"])
    func convertPrivate(_ name: String) async throws {
        let run = try await CLI.run(["key", "--key", "Keys/\(name).pem"])
        try #require(run.status == 0, "\(run.stderr)")
        let made = try #require(CLIKeyTests.object(run.stdout))
        let expected = try CLIKeyTests.keyFile("\(name).jwk")
        for member in ["kty", "crv", "x", "y", "d", "n", "e", "p", "q", "dp", "dq", "qi"] {
            #expect(made[member] as? String == expected[member] as? String, "\(member)")
        }
        let pem = try await CLI.run(["key", "--key", "Keys/\(name).jwk"])
        try #require(pem.status == 0, "\(pem.stderr)")
        #expect(pem.stdout.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let directory = try External.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("k.pem")
        try Data(pem.stdout.utf8).write(to: file)
        if await !(try Self.python(Self.importPEM, [file.path, "Keys/\(name).pub.pem"])) { print("cryptography not installed: skipped") }
    }

    @Test(
        "generation refusals: exit 2",
        arguments: [
            ("key --kty EC --crv P-999", "--crv P-256"), ("key --kty RSA --size 1024", "--size 2048"),
            ("key --kty OKP --crv X448", "Ed25519 or X25519"), ("key --kty oct --size 256 --format pem", "PEM"),
            ("key --kty DSA", "--kty takes"), ("key --kty EC --crv P-256 --out Keys/p256.pem", "File exists"),
        ])
    func refusals(_ row: (String, String)) async throws {
        let run = try await CLI.run(row.0.split(separator: " ").map(String.init))
        #expect(run.status == 2)
        #expect(run.stderr.contains(row.1), "\(run.stderr)")
    }
}
