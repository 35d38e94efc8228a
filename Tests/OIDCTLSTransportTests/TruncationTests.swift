import Foundation
import OIDC
import TestProcesses
import Testing

@testable import OIDCTLSTransport

/// A response whose end is not announced by TLS `close_notify` (RFC 8446 §6.1) can have been cut short
/// by anyone on the path: `LibSSLTransport` then needs the body's own framing.
@Suite(
    "LibSSLTransport: truncation without close_notify",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct TruncationTests {
    /// A TLS server on 127.0.0.1 answering every path with a fixed JSON body, framed as the path says:
    /// `/cut` no length, then the TCP connection closed without close_notify; `/cut-length` the same with
    /// `Content-Length`; `/cut-chunked` chunked; `/notify` no length, ended with close_notify.
    static func server() async throws -> (StartedChild, Int) {
        let child = try StartedChild(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", "-u", "-c",
                """
                import os, socket, ssl, sys, threading
                threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
                threading.Timer(600, lambda: os._exit(0)).start()
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(sys.argv[1], sys.argv[2])
                listener = socket.create_server(("127.0.0.1", 0))
                print(listener.getsockname()[1], flush=True)
                body = b'{"keys":[]}'
                while True:
                    raw, _ = listener.accept()
                    try:
                        conn = context.wrap_socket(raw, server_side=True)
                        request = b""
                        while b"\\r\\n\\r\\n" not in request:
                            data = conn.recv(4096)
                            if not data: break
                            request += data
                        path = request.split(b" ")[1] if request.count(b" ") >= 2 else b"/"
                        head = b"HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\n"
                        if path == b"/cut-length":
                            conn.sendall(head + b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)
                        elif path == b"/cut-chunked":
                            conn.sendall(head + b"Transfer-Encoding: chunked\\r\\n\\r\\n%x\\r\\n" % len(body) + body + b"\\r\\n0\\r\\n\\r\\n")
                        else:
                            conn.sendall(head + b"\\r\\n" + body)
                        if path == b"/notify":
                            try: conn.unwrap()
                            except Exception: pass
                        else:
                            conn.shutdown(socket.SHUT_RDWR)  # the TCP stream ends; no TLS close_notify is sent
                        conn.close()
                    except Exception:
                        raw.close()
                """, try await LibSSLTransportTests.file("server.pem"), try await LibSSLTransportTests.file("server.key"),
            ])
        guard let port = Int(try await child.firstLine()) else {
            child.stop()
            throw TransportError.connectionFailed("the test's TLS server did not start")
        }
        return (child, port)
    }

    @Test("no length and no close_notify: refused; a length, chunked framing or close_notify: accepted")
    func cutShortIsRefused() async throws {
        let (server, port) = try await Self.server()
        defer { server.stop() }
        let transport = try LibSSLTransport(serverTrust: .caFile(try await LibSSLTransportTests.file("ca.pem")))
        func get(_ path: String) async throws -> TransportResponse {
            try await transport.send(TransportRequest(url: try #require(URL(string: "https://127.0.0.1:\(port)\(path)")), timeout: 20))
        }
        let error = await #expect(throws: TransportError.self) { _ = try await get("/cut") }
        #expect(String(describing: error).contains("close_notify"), "\(String(describing: error))")
        for path in ["/cut-length", "/cut-chunked", "/notify"] {
            let response = try await get(path)
            #expect(response.status == 200, "\(path)")
            #expect(response.body == Array(#"{"keys":[]}"#.utf8), "\(path)")
        }
    }

    @Test("the parser: a body running to the end is refused only when the end was not authenticated")
    func parserRule() throws {
        let raw = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}".utf8)
        #expect(try HTTPResponseParser.parse(raw, limit: 1024).body == Array("{}".utf8))
        #expect(throws: HTTPParseError.self) { _ = try HTTPResponseParser.parse(raw, limit: 1024, bodyMayEndAtClose: false) }
        let noContent = Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)
        #expect(try HTTPResponseParser.parse(noContent, limit: 1024, bodyMayEndAtClose: false).status == 204)
    }
}
