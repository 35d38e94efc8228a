import Foundation
import TestProcesses

/// A back-channel logout receiver on 127.0.0.1 (Python, started and stopped by the test): it answers every POST with
/// 200 and keeps its body and `Content-Type` as one file per request, which the test hands to the client as an
/// application's route would. Standing in for the route keeps the tool's synchronous call from waiting on the test.
final class LogoutReceiver: @unchecked Sendable {
    let directory: URL
    let process = Process()
    let input = Pipe()
    let port: Int

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rp-logout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-u", "-c",
            """
            import os, sys, threading, http.server
            folder = sys.argv[1]
            threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
            threading.Timer(900, lambda: os._exit(0)).start()  # only if the test died: the test ends it
            class Handler(http.server.BaseHTTPRequestHandler):
                count = 0
                def do_POST(self):
                    length = min(int(self.headers.get("Content-Length") or 0), 1 << 16)
                    body = self.rfile.read(length)
                    Handler.count += 1
                    name = os.path.join(folder, "%03d" % Handler.count)
                    with open(name + ".tmp", "wb") as f:
                        f.write((self.headers.get("Content-Type") or "").encode("latin-1") + b"\\n" + body)
                    os.rename(name + ".tmp", name + ".post")
                    self.send_response(200); self.send_header("Cache-Control", "no-store"); self.send_header("Content-Length", "0"); self.end_headers()
                def log_message(self, *args): pass
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """, directory.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        let line = try await ChildProcess.firstLine(of: output.fileHandleForReading)
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw CLIError("the logout receiver did not start: \(line)")
        }
        self.port = port
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/backchannel-logout")! }

    /// The requests received so far: `Content-Type` and body.
    func received() throws -> [(contentType: String, body: [UInt8])] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".post") }.sorted()
        return try names.map { name in
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            let newline = data.firstIndex(of: 0x0A) ?? data.endIndex
            return (String(decoding: data[data.startIndex..<newline], as: UTF8.self), Array(data[data.index(after: newline)...]))
        }
    }

    /// Ends the receiver (closing its stdin) and removes its files.
    func stop() async {
        try? input.fileHandleForWriting.close()
        await ChildProcess.waitForExit(of: process)
        try? FileManager.default.removeItem(at: directory)
    }
}
