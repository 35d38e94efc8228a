import Foundation
import JOSE
import TestProcesses
import Testing

/// A real HTTP server on 127.0.0.1 (Python's http.server over a temporary
/// folder), started and stopped by the test.
final class LocalFileServer {
    let directory: URL
    let process = Process()
    let input = Pipe()
    let port: Int

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-inspect-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent(".well-known"), withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-u", "-c",
            """
            import http.server, socketserver, sys, os, threading
            os.chdir(sys.argv[1])
            # Exit as soon as the test closes our stdin (or dies).
            threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
            class Quiet(http.server.SimpleHTTPRequestHandler):
                def log_message(self, *args): pass
            # Only if this process's test died: the test ends it (stdin closed, then SIGKILL).
            threading.Timer(900, lambda: os._exit(0)).start()
            server = socketserver.TCPServer(("127.0.0.1", 0), Quiet)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """, directory.path,
        ]
        port = try await startServer(process, input: input, what: "the local HTTP server")
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func write(_ path: String, _ text: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(path))
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()  // brief: reaping a child just killed
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs `process` (a server that prints its port on its first line) and returns that port,
/// waiting for the line off Swift's cooperative pool.
func startServer(_ process: Process, input: Pipe, what: String) async throws -> Int {
    let output = Pipe()
    process.standardOutput = output
    process.standardInput = input
    try process.run()
    let line = try await ChildProcess.firstLine(of: output.fileHandleForReading)
    guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        process.terminate()
        throw CLIError("\(what) did not start: \(line)")
    }
    return port
}

@Suite(
    "jwt-inspect --jwks-url and --issuer against a local HTTP server",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct CLINetworkTests {
    static func publicSet() throws -> String {
        let keys = try ["rsa2048.pub.jwk", "p256.pub.jwk"].map { try Tokens.key($0).publicJWKString }
        return "{\"keys\":[" + keys.joined(separator: ",") + "]}"
    }

    @Test("--jwks-url fetches the key set; the kid picks the key")
    func jwksURL() async throws {
        let server = try await LocalFileServer()
        try server.write("jwks.json", Self.publicSet())
        let kid = try Tokens.key("rsa2048.pub.jwk").keyID
        let token = try Tokens.sign(.rs256, key: "rsa2048.pem", kid: kid)
        let ok = try await CLI.run(["--json", "--now", "\(Tokens.now)", "--jwks-url", "\(server.base)/jwks.json", token])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.result == "valid")
        let missing = try await CLI.run(["--jwks-url", "\(server.base)/nothing-here.json", token])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("404"))
    }

    @Test("--issuer: discovery, exact issuer match, jwks_uri, and the token's iss")
    func issuer() async throws {
        let server = try await LocalFileServer()
        try server.write("jwks.json", Self.publicSet())
        try server.write(
            ".well-known/openid-configuration",
            CLIServerHardeningTests.discovery(server.base, jwksURI: "\(server.base)/jwks.json"))
        let kid = try Tokens.key("p256.pub.jwk").keyID
        let good = try Tokens.sign(.es256, key: "p256.pem", claims: Tokens.claims([("iss", .string(server.base))]), kid: kid)
        let ok = try await CLI.run(["--json", "--now", "\(Tokens.now)", "--issuer", server.base, good])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.result == "valid")
        // A token from another issuer, signed with a key the issuer publishes: iss must still match.
        let otherIssuer = try Tokens.sign(.es256, key: "p256.pem", kid: kid)
        let wrongIss = try await CLI.run(["--json", "--now", "\(Tokens.now)", "--issuer", server.base, otherIssuer])
        #expect(wrongIss.status == 1)
        #expect(wrongIss.reason == "issuer_mismatch")
    }

    @Test("discovery naming another issuer is a setup error (exit 2)")
    func discoveryIssuerMismatch() async throws {
        let server = try await LocalFileServer()
        try server.write(
            ".well-known/openid-configuration", CLIServerHardeningTests.discovery("https://elsewhere.example", jwksURI: "\(server.base)/jwks.json"))
        let token = try Tokens.sign(.rs256, key: "rsa2048.pem")
        let run = try await CLI.run(["--issuer", server.base, token])
        #expect(run.status == 2)
        #expect(run.stderr.contains("discovery_issuer_mismatch"), "\(run.stderr)")
    }

    @Test("an unreachable URL is a setup error (exit 2)", arguments: ["http://127.0.0.1:1/jwks.json", "ftp://example.com/jwks.json"])
    func unreachable(_ url: String) async throws {
        let token = try Tokens.sign(.rs256, key: "rsa2048.pem")
        let run = try await CLI.run(["--jwks-url", url, token])
        #expect(run.status == 2)
        #expect(!run.stderr.isEmpty)
    }
}
