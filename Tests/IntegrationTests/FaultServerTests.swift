import Foundation
import OIDC
import OIDCNetworking
import TestProcesses
import Testing

/// Tests/Support/fault_server.py on 127.0.0.1: canned faults the real provider
/// will not produce on demand. Killed with SIGKILL (and it exits when stdin closes).
struct FaultServer {
    let child: StartedChild
    let base: String

    /// Starts `Tests/Support/<script>` (a server that prints its port and serves until stdin closes).
    static func start(script: String = "fault_server.py") async throws -> FaultServer {
        let child = try StartedChild(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", Provider.repository.appendingPathComponent("Tests/Support/\(script)").path])
        guard let port = Int(try await child.firstLine(limit: 11)) else {
            child.stop()
            throw CLIError("the fault server did not start")
        }
        return FaultServer(child: child, base: "http://127.0.0.1:\(port)")
    }

    func url(_ path: String) -> URL { URL(string: base + path)! }

    func stop() { child.stop() }
}

@Suite(
    "Fault server: 5xx, HTML, empty, garbage, redirect, oversize, timeout over URLSessionTransport",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct FaultServerTests {
    func exchange(_ server: FaultServer, _ path: String, timeout: TimeInterval = 5) async -> OIDCError? {
        do {
            let client = try TokenClient(
                tokenEndpoint: server.url(path), authentication: .none(clientID: "c"), transport: URLSessionTransport(),
                timeout: timeout)
            _ = try await client.exchangeCode("code", redirectURI: Provider.redirectURI, codeVerifier: "v")
            return nil
        } catch {
            return error as? OIDCError
        }
    }

    @Test("each fault maps to its own typed error")
    func faults() async throws {
        let server = try await FaultServer.start()
        defer { server.stop() }
        let serverError = await exchange(server, "/server-error")
        #expect(serverError?.code == .endpointServerError)
        #expect(serverError?.httpStatus == 500)
        let html = await exchange(server, "/html")
        #expect(html?.code == .invalidEndpointResponse)
        #expect(html?.reason.contains("HTML") == true)
        #expect(await exchange(server, "/empty")?.code == .emptyEndpointResponse)
        #expect(await exchange(server, "/garbage")?.code == .invalidEndpointResponse)
        let redirect = await exchange(server, "/redirect")
        #expect(redirect?.code == .unexpectedRedirect)
        #expect(redirect?.httpStatus == 302)
        let big = await exchange(server, "/big")
        #expect(big?.code == .transport)
        #expect(big?.transportError == .responseTooLarge(1 << 20))
        let slow = await exchange(server, "/slow", timeout: 1)
        #expect(slow?.code == .transport)
        #expect(slow?.transportError == .timedOut)
        let ok = try TokenClient(tokenEndpoint: server.url("/ok"), authentication: .none(clientID: "c"), transport: URLSessionTransport())
        #expect(try await ok.refresh("r").accessToken == "x")
    }

    @Test("a refused connection is a transport error")
    func refused() async throws {
        let client = try TokenClient(
            tokenEndpoint: URL(string: "http://127.0.0.1:9/token")!, authentication: .none(clientID: "c"),
            transport: URLSessionTransport(), timeout: 5)
        do {
            _ = try await client.refresh("r")
            Issue.record("expected a transport error")
        } catch let error as OIDCError {
            #expect(error.code == .transport)
            if case .connectionFailed? = error.transportError {} else { Issue.record("expected connectionFailed, got \(error)") }
        }
    }

    @Test("URLSessionTransport follows a redirect only when the request allows it")
    func redirectOptIn() async throws {
        let server = try await FaultServer.start()
        defer { server.stop() }
        let transport = URLSessionTransport()
        #expect(try await transport.send(TransportRequest(url: server.url("/redirect"))).status == 302)
        let followed = try await transport.send(TransportRequest(url: server.url("/redirect"), followsRedirects: true))
        #expect(followed.status == 200)
    }

    @Test("sample-exchange-code refuses a token response whose token_type is not Bearer (RFC 6749 §7.1)")
    func sampleRefusesDPoP() async throws {
        let server = try await FaultServer.start()
        defer { server.stop() }
        let result = try await SampleRunner.run(
            "sample-exchange-code",
            [
                "--issuer", server.base + "/dpop", "--client-id", "c", "--client-secret", "s", "--redirect-uri", Provider.redirectURI.absoluteString,
                "--code", "the-code", "--code-verifier", String(repeating: "v", count: 43),
            ])
        #expect(result.status == 1)
        #expect(result.error.contains("unsupported_token_type"), "\(result.error)")
        #expect(result.output.isEmpty)
    }
}
