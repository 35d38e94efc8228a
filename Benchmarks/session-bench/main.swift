// session-bench: per-request cost of AuthenticatedSession over the bare transport,
// against a local HTTP server on 127.0.0.1 (Python's http.server, started and
// stopped here). Rounds alternate bare / session; medians are reported.
//
//   swift run -c release session-bench [REQUESTS_PER_ROUND]
import Foundation
import OIDC
import OIDCNetworking
import OIDCSession

struct NeverRefresh: TokenRefresher {
    func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        throw OIDCError(.refreshFailed, "the benchmark server never answers 401")
    }
}

let perRound = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 500
let server = Process()
server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
server.arguments = [
    "python3", "-u", "-c",
    """
    import http.server, sys, threading, os
    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def do_GET(self):
            body = b'{"ok":true}'
            # One write for status, headers and body: separate segments meet delayed ACKs (40 ms stalls).
            self.wfile.write(b"HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\nContent-Length: %d\\r\\n\\r\\n%s" % (len(body), body))
        def log_message(self, *a): pass
    s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    print(s.server_address[1], flush=True)
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    s.serve_forever()
    """,
]
let output = Pipe(), input = Pipe()
server.standardOutput = output
server.standardInput = input
try server.run()
var portText = ""
while true {
    let byte = output.fileHandleForReading.readData(ofLength: 1)
    if byte.isEmpty || byte == Data([0x0A]) { break }
    portText += String(decoding: byte, as: UTF8.self)
}
guard let port = Int(portText) else { print("session-bench: the local server did not start"); exit(1) }
let url = URL(string: "http://127.0.0.1:\(port)/resource")!

let transport = URLSessionTransport()
let session = try AuthenticatedSession(
    tokens: TokenResponse(accessToken: "bench-token", refreshToken: "r"), refresher: NeverRefresh(),
    configuration: .init(
        allowedOrigins: [url], transport: transport,
        proactiveRefreshMargin: nil))

func measure(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<perRound { try await body() }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1000 / Double(perRound)
}

var bare: [Double] = [], wrapped: [Double] = []
for _ in 0..<20 { _ = try await transport.send(TransportRequest(url: url)) }  // warm-up
for _ in 0..<7 {
    bare.append(try await measure { _ = try await transport.send(TransportRequest(url: url)) })
    wrapped.append(try await measure { _ = try await session.send(TransportRequest(url: url)) })
}
let b = bare.sorted()[3], w = wrapped.sorted()[3]
print(
    "session-bench requests_per_round=\(perRound) bare_us=\(String(format: "%.1f", b)) session_us=\(String(format: "%.1f", w)) overhead_us=\(String(format: "%.1f", w - b)) overhead_pct=\(String(format: "%.1f", (w - b) / b * 100))"
)
try? input.fileHandleForWriting.close()
kill(server.processIdentifier, SIGKILL)
