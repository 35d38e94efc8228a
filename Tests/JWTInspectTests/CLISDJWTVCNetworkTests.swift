import Foundation
import JOSE
import TestProcesses
import Testing

/// Tests/Support/credential_host.py, started and stopped by the test: a credential issuer's host where the test PUTs
/// the JWT VC issuer metadata, key sets and status list tokens it signed.
final class CredentialHost {
    let process = Process()
    let input = Pipe()
    let port: Int

    init() async throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", CLI.repository.appendingPathComponent("Tests/Support/credential_host.py").path]
        port = try await startServer(process, input: input, what: "the credential host")
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// Stores `body` at `path` (served to GET with `contentType`), through Python's urllib (the tests' only HTTP client).
    func put(_ path: String, _ body: String, contentType: String = "application/json") async throws {
        let script = """
            import sys, urllib.request
            request = urllib.request.Request(sys.argv[1], data=sys.stdin.buffer.read(), method="PUT", headers={"Content-Type": sys.argv[2]})
            print(urllib.request.urlopen(request).status)
            """
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, base + path, contentType], stdin: Data(body.utf8))
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "204", "PUT \(path): \(result.errors)")
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()  // brief: reaping a child just killed
    }
}

/// `jwt-inspect --as sd-jwt-vc --issuer URL` (keys from the JWT VC issuer metadata) and `--check-status` (the
/// credential's Token Status List) against credential_host.py: exit codes and reasons as issue 32 gives them.
@Suite(
    "jwt-inspect SD-JWT VC: issuer metadata and status lists (scripted host)",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct CLISDJWTVCNetworkTests {
    static let issuerKey: JWK = {
        (try? JWK(pem: String(contentsOf: CLI.repository.appendingPathComponent("Keys/p256.pem"), encoding: .utf8))) ?? JWK(symmetricKey: [])
    }()

    /// A zlib stream of one stored block (header 78 01, BFINAL|stored, LEN, NLEN, data, Adler-32), Base64URL.
    static func lst(_ bytes: [UInt8]) -> String {
        var stream: [UInt8] = [0x78, 0x01, 0x01]
        let count = UInt16(bytes.count)
        stream += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8(~count >> 8)]
        stream += bytes
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        let adler = (b << 16) | a
        stream += [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
        return Base64URL.encode(stream)
    }

    /// The issuer at `/issuer` with its metadata (keys by value), and a status list at `/lists/a` holding 2-bit
    /// entries 0 (valid), 1 (revoked), 2 (suspended), 3, signed by the issuer's key.
    static func publish(_ host: CredentialHost, metadataIssuer: String? = nil) async throws -> String {
        let issuer = host.base + "/issuer"
        let jwks = "{\"keys\":[" + issuerKey.publicJWKString + "]}"
        try await host.put("/.well-known/jwt-vc-issuer/issuer", "{\"issuer\":\"\(metadataIssuer ?? issuer)\",\"jwks\":\(jwks)}")
        let list: JSONObject = [
            "sub": .string(host.base + "/lists/a"), "iat": .integer(Int64(Date().timeIntervalSince1970)), "ttl": 600,
            "status_list": ["bits": 2, "lst": .string(lst([0b1110_0100]))],
        ]
        try await host.put(
            "/lists/a", try JWT.sign(list, key: issuerKey, algorithm: .es256, header: ["typ": "statuslist+jwt"]),
            contentType: "application/statuslist+jwt")
        return issuer
    }

    /// An SD-JWT VC of `iss`, with `status.status_list` naming entry `index` of `/lists/a` when given.
    static func credential(iss: String, host: CredentialHost, index: Int? = nil) async throws -> String {
        var claims = "{\"iss\": \"\(iss)\", \"vct\": \"https://credentials.example/id\", \"given_name\": \"Erika\""
        if let index { claims += ", \"status\": {\"status_list\": {\"idx\": \(index), \"uri\": \"\(host.base)/lists/a\"}}" }
        let file = try CLISDJWTTests.file(claims + "}")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let result = try await CLI.run(
            ["sd-jwt", "issue", "--key", "Keys/p256.pem", "--claims", file.path, "--typ", "dc+sd-jwt", "--sd", "/given_name"])
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("--issuer URL: the keys from URL/.well-known/jwt-vc-issuer/..., iss must equal URL, a document for another issuer exits 2")
    func issuerMetadata() async throws {
        let host = try await CredentialHost()
        let issuer = try await Self.publish(host)
        let token = try await Self.credential(iss: issuer, host: host)
        let valid = try await CLI.run(["--as", "sd-jwt-vc", "--issuer", issuer, "--json", token])
        #expect(valid.status == 0, "\(valid.stdout) \(valid.stderr)")
        #expect(valid.result == "valid")
        let human = try await CLI.run(["--as", "sd-jwt-vc", "--issuer", issuer, "--color", "never", token])
        #expect(human.status == 0)
        #expect(human.stdout.contains("✔ issuer     keys from the JWT VC issuer metadata of \(issuer), iss equal to it"))
        // The credential of another issuer, verified against this issuer's metadata: its iss is not the issuer.
        let foreign = try await Self.credential(iss: "https://other.example", host: host)
        let mismatch = try await CLI.run(["--as", "sd-jwt-vc", "--issuer", issuer, "--json", foreign])
        #expect(mismatch.status == 1 && mismatch.reason == "issuer_mismatch", "\(mismatch.stdout)")
        // A document naming another issuer: no keys (setup error, as for OpenID discovery).
        _ = try await Self.publish(host, metadataIssuer: "https://other.example")
        let wrongDocument = try await CLI.run(["--as", "sd-jwt-vc", "--issuer", issuer, "--json", token])
        #expect(wrongDocument.status == 2)
        #expect(wrongDocument.stderr.contains("vc_issuer_metadata_invalid"), "\(wrongDocument.stderr)")
        // Keys by reference: jwks_uri on the same host.
        try await host.put("/jwks", "{\"keys\":[" + Self.issuerKey.publicJWKString + "]}")
        try await host.put("/.well-known/jwt-vc-issuer/issuer", "{\"issuer\":\"\(issuer)\",\"jwks_uri\":\"\(host.base)/jwks\"}")
        let byReference = try await CLI.run(["--as", "sd-jwt-vc", "--issuer", issuer, "--json", token])
        #expect(byReference.status == 0 && byReference.result == "valid", "\(byReference.stdout) \(byReference.stderr)")
        #expect(try await CLI.run(["--as", "sd-jwt-vc", "--issuer", issuer, "--iss", "https://other.example", token]).status == 2)
    }

    @Test("--check-status: entry 0 valid (exit 0), 1 credential_revoked, 2 credential_suspended, 3 credential_status_not_valid (exit 1)")
    func statusEntries() async throws {
        let host = try await CredentialHost()
        let issuer = try await Self.publish(host)
        let expected: [(Int, Int32, String?)] = [
            (0, 0, nil), (1, 1, "credential_revoked"), (2, 1, "credential_suspended"), (3, 1, "credential_status_not_valid"),
            (4, 1, "status_list_invalid"),
        ]
        for (index, status, reason) in expected {
            let token = try await Self.credential(iss: issuer, host: host, index: index)
            let result = try await CLI.run(["--as", "sd-jwt-vc", "--issuer", issuer, "--check-status", "--json", token])
            #expect(result.status == status, "entry \(index): \(result.stdout) \(result.stderr)")
            if let reason {
                #expect(result.result == "invalid" && result.reason == reason, "entry \(index): \(result.stdout)")
                #expect(result.stderr.contains("[\(reason)]"))
            } else {
                #expect(result.json?["status"] as? String == "valid", "\(result.stdout)")
            }
        }
        let token = try await Self.credential(iss: issuer, host: host, index: 1)
        let human = try await CLI.run(["--as", "sd-jwt-vc", "--issuer", issuer, "--check-status", "--color", "never", token])
        #expect(human.status == 1)
        #expect(human.stdout.contains("INVALID: the credential's status list entry is 1: the issuer revoked it [credential_revoked]"), "\(human.stdout)")
        let good = try await CLI.run(
            ["--as", "sd-jwt-vc", "--issuer", issuer, "--check-status", "--color", "never", try await Self.credential(iss: issuer, host: host, index: 0)])
        #expect(good.stdout.contains("✔ status     entry 0 of \(host.base)/lists/a: valid"), "\(good.stdout)")
        // Without --check-status the revoked credential is not looked up.
        #expect(try await CLI.run(["--as", "sd-jwt-vc", "--issuer", issuer, token]).status == 0)
    }

    @Test("--check-status with --key: a loopback status list is refused by the fetch policy unless --allow-host names it")
    func fetchPolicy() async throws {
        let host = try await CredentialHost()
        let issuer = try await Self.publish(host)
        let token = try await Self.credential(iss: issuer, host: host, index: 2)
        let refused = try await CLI.run(["--as", "sd-jwt-vc", "--key", "Keys/p256.pub.pem", "--check-status", "--json", token])
        #expect(refused.status == 1 && refused.reason == "status_list_host_refused", "\(refused.stdout)")
        let allowed = try await CLI.run(
            ["--as", "sd-jwt-vc", "--key", "Keys/p256.pub.pem", "--check-status", "--allow-host", "127.0.0.1:\(host.port)", "--json", token])
        #expect(allowed.status == 1 && allowed.reason == "credential_suspended", "\(allowed.stdout)")
        // A status list signed by another key than the issuer's is not trusted.
        let other = try await CLI.run(
            [
                "--as", "sd-jwt-vc", "--key", "Keys/p256.pub.pem", "--check-status", "--allow-host", "127.0.0.1:\(host.port)", "--json",
                try await Self.credential(iss: issuer, host: host, index: 0),
            ])
        #expect(other.status == 0)
        let list: JSONObject = [
            "sub": .string(host.base + "/lists/a"), "iat": .integer(Int64(Date().timeIntervalSince1970)),
            "status_list": ["bits": 2, "lst": .string(Self.lst([0]))],
        ]
        try await host.put(
            "/lists/a", try JWT.sign(list, key: try JWK.generate(.ec(.p256)), algorithm: .es256, header: ["typ": "statuslist+jwt"]),
            contentType: "application/statuslist+jwt")
        let forged = try await CLI.run(
            [
                "--as", "sd-jwt-vc", "--key", "Keys/p256.pub.pem", "--check-status", "--allow-host", "127.0.0.1:\(host.port)", "--json",
                try await Self.credential(iss: issuer, host: host, index: 0),
            ])
        #expect(forged.status == 1 && forged.reason == "status_list_invalid", "\(forged.stdout)")
        // Usage: --check-status is for sd-jwt-vc; --allow-host needs HOST:PORT.
        #expect(try await CLI.run(["--as", "sd-jwt", "--key", "Keys/p256.pub.pem", "--check-status", token]).status == 2)
        #expect(try await CLI.run(["--as", "sd-jwt-vc", "--key", "Keys/p256.pub.pem", "--allow-host", "nohost", token]).status == 2)
    }
}
