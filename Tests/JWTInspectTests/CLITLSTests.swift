import Foundation
import JOSE
import TestProcesses
import Testing

/// An HTTPS server on 127.0.0.1 (Python's http.server over TLS) with a certificate made
/// here by the `openssl` command line, serving a JWK Set.
final class LocalTLSServer {
    let directory: URL
    let process = Process()
    let input = Pipe()
    let port: Int
    var certificate: String { directory.appendingPathComponent("cert.pem").path }

    /// - Parameters:
    ///   - names: the certificate's subjectAltName entries, e.g. `DNS:localhost`.
    ///   - onlyTLS11: offer TLS 1.1 and nothing else (security level 0, so OpenSSL allows it at all).
    init(names: String, onlyTLS11: Bool = false) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-inspect-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let openssl = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", directory.appendingPathComponent("key.pem").path, "-out", directory.appendingPathComponent("cert.pem").path,
                "-days", "1", "-subj", "/CN=jwt-inspect test", "-addext", "subjectAltName=\(names)",
            ])
        guard openssl.status == 0 else { throw CLIError("openssl could not make a test certificate") }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-u", "-c",
            """
            import http.server, os, ssl, sys, threading
            os.chdir(sys.argv[1])
            threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
            threading.Timer(900, lambda: os._exit(0)).start()  # only if this process's test died: the test ends it
            class Quiet(http.server.SimpleHTTPRequestHandler):
                def log_message(self, *args): pass
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            if sys.argv[2] == "tls1.1":
                import warnings; warnings.simplefilter("ignore")
                context.set_ciphers("DEFAULT:@SECLEVEL=0")
                context.minimum_version = context.maximum_version = ssl.TLSVersion.TLSv1_1
            context.load_cert_chain("cert.pem", "key.pem")
            server.socket = context.wrap_socket(server.socket, server_side=True)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """, directory.path, onlyTLS11 ? "tls1.1" : "default",
        ]
        port = try await startServer(process, input: input, what: "the local HTTPS server")
    }

    func write(_ path: String, _ text: String) throws { try Data(text.utf8).write(to: directory.appendingPathComponent(path)) }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()  // brief: reaping a child just killed
        try? FileManager.default.removeItem(at: directory)
    }
}

@Suite(
    "jwt-inspect over TLS (issue 13)",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct CLITLSTests {
    static func run(_ server: LocalTLSServer, host: String, trusting: Bool, environment: [String: String] = [:]) async throws -> CLI.Result {
        try server.write("jwks.json", CLINetworkTests.publicSet())
        let token = try Tokens.sign(.rs256, key: "rsa2048.pem", kid: Tokens.key("rsa2048.pub.jwk").keyID)
        // OpenSSL's default verify paths honour SSL_CERT_FILE: the test certificate becomes the only trust anchor.
        return try await CLI.run(
            ["--json", "--now", "\(Tokens.now)", "--jwks-url", "https://\(host):\(server.port)/jwks.json", token],
            environment: environment.merging(["SSL_CERT_FILE": trusting ? server.certificate : "/nonexistent"]) { $1 })
    }

    /// An OpenSSL configuration that lets TLS 1.0 and 1.1 through (what a host with a permissive
    /// system-wide `openssl.cnf` has): only the tool's own floor can then refuse them.
    static func permissiveOpenSSLConfiguration(in server: LocalTLSServer) throws -> String {
        let path = server.directory.appendingPathComponent("permissive.cnf").path
        try Data(
            """
            openssl_conf = openssl_init
            [openssl_init]
            ssl_conf = ssl_sect
            [ssl_sect]
            system_default = system_default_sect
            [system_default_sect]
            MinProtocol = TLSv1
            CipherString = DEFAULT:@SECLEVEL=0

            """.utf8
        ).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Debian's default configuration already refuses TLS 1.1, so this runs the tool under a
    /// configuration that allows it (`openssl s_client` negotiates TLS 1.1 with this server under
    /// it): the tool's explicit TLS 1.2 minimum must still refuse the server.
    @Test("a server offering only TLS 1.1 is refused even where the system's OpenSSL configuration allows TLS 1.1")
    func tls12Floor() async throws {
        let server = try await LocalTLSServer(names: "DNS:localhost,IP:127.0.0.1", onlyTLS11: true)
        let run = try await Self.run(
            server, host: "localhost", trusting: true,
            environment: ["OPENSSL_CONF": try Self.permissiveOpenSSLConfiguration(in: server)])
        #expect(run.status == 2, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("TLS handshake"), "\(run.stderr)")
    }

    @Test("https with a trusted certificate for the host: the key set is fetched (libssl loaded on demand)")
    func trusted() async throws {
        let server = try await LocalTLSServer(names: "DNS:localhost,IP:127.0.0.1")
        for host in ["localhost", "127.0.0.1"] {
            let run = try await Self.run(server, host: host, trusting: true)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.result == "valid")
        }
    }

    @Test("an untrusted certificate is refused (exit 2, the verification error named)")
    func untrusted() async throws {
        let run = try await Self.run(try LocalTLSServer(names: "DNS:localhost"), host: "localhost", trusting: false)
        #expect(run.status == 2)
        #expect(run.stderr.contains("certificate"), "\(run.stderr)")
    }

    @Test("a trusted certificate for another name is refused: host name verification is on")
    func wrongName() async throws {
        let run = try await Self.run(try LocalTLSServer(names: "DNS:other.example"), host: "localhost", trusting: true)
        #expect(run.status == 2)
        #expect(run.stderr.contains("mismatch") || run.stderr.contains("certificate"), "\(run.stderr)")
    }
}
