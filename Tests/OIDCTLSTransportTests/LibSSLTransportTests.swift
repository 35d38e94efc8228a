import Foundation
import JOSE
import OIDC
import TestProcesses
import Testing

@testable import OIDCTLSTransport

/// `LibSSLTransport` without a server: what it refuses before connecting, and its client identity.
@Suite("LibSSLTransport")
struct LibSSLTransportTests {
    /// Fresh test certificates (Tests/Glewlwyd/tls-certificates.sh) in a temporary directory.
    static let certificates = Task<URL?, Never> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("libssl-transport-\(UUID().uuidString)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Glewlwyd/tls-certificates.sh")
        let made = try? await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["bash", script.path, directory.path])
        return made?.status == 0 ? directory : nil
    }

    static func file(_ name: String) async throws -> String {
        try #require(await certificates.value, "openssl could not make test certificates").appendingPathComponent(name).path
    }

    @Test("the client identity is loaded once: its DER is the certificate's, and x5t#S256 is its SHA-256")
    func identity() async throws {
        let transport = try LibSSLTransport(
            clientIdentity: .init(certificateFile: try await Self.file("client.pem"), privateKeyFile: try await Self.file("client.key")),
            serverTrust: .caFile(try await Self.file("ca.pem")))
        let pem = try String(contentsOfFile: try await Self.file("client.pem"), encoding: .utf8)
        #expect(transport.clientCertificateDER == (try PEMBlock.der(of: pem, label: "CERTIFICATE")))
        #expect(try LibSSLTransport().clientCertificateDER == nil)
    }

    @Test("a key that does not match, a missing file or a non-PEM file fail at init with the file named and no key material")
    func badIdentity() async throws {
        let keyText = try await String(contentsOfFile: try Self.file("other.key"), encoding: .utf8)
        let cases: [(LibSSLTransport.ClientIdentity, String)] = await [
            (.init(certificateFile: try Self.file("client.pem"), privateKeyFile: try Self.file("other.key")), "matches the certificate"),
            (.init(certificateFile: "/nonexistent/client.pem", privateKeyFile: try Self.file("client.key")), "/nonexistent/client.pem"),
            (.init(certificateFile: try Self.file("client.pem"), privateKeyFile: try Self.file("client.pem")), "private key"),
        ]
        for (identity, expected) in cases {
            let error = try #require(throws: TransportError.self) { _ = try LibSSLTransport(clientIdentity: identity) }
            let text = String(describing: error)
            #expect(text.contains(expected), "\(text)")
            #expect(!text.contains("PRIVATE KEY") && !text.contains(String(keyText.split(separator: "\n")[1].prefix(20))))
        }
        #expect(throws: TransportError.self) { _ = try LibSSLTransport(serverTrust: .caFile("/nonexistent/ca.pem")) }
    }

    @Test("refused before any connection: http to a remote host, CR/LF in a header value, a malformed method")
    func refusedRequests() async throws {
        let transport = try LibSSLTransport()
        await #expect(throws: TransportError.self) {
            _ = try await transport.send(TransportRequest(url: URL(string: "http://example.com/token")!))
        }
        let target = try HTTPFetch.parse("https://127.0.0.1:1/token?x=1")
        #expect(throws: TransportError.self) {
            _ = try LibSSLTransport.head(
                TransportRequest(url: URL(string: "https://127.0.0.1:1/token")!, headers: ["X-Test": "a\r\nInjected: 1"]),
                target: target, bodyLength: nil)
        }
        #expect(throws: TransportError.self) {
            _ = try LibSSLTransport.head(
                TransportRequest(method: "GET /x HTTP/1.1\r\n", url: URL(string: "https://127.0.0.1:1/token")!),
                target: target, bodyLength: nil)
        }
        let head = try LibSSLTransport.head(
            TransportRequest(
                method: .post, url: URL(string: "https://127.0.0.1:1/token?x=1")!,
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Host": "evil"]),
            target: target, bodyLength: 3)
        #expect(
            head == "POST /token?x=1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "User-Agent: swift-oidc-toolkit\r\nContent-Length: 3\r\nConnection: close\r\n\r\n")
    }

    @Test("a closed port fails as connectionFailed, within the request's timeout")
    func closedPort() async throws {
        let transport = try LibSSLTransport()
        await #expect(throws: TransportError.self) {
            _ = try await transport.send(TransportRequest(url: URL(string: "https://127.0.0.1:1/")!, timeout: 5))
        }
    }
}
