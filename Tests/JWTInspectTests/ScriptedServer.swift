import Foundation

/// A raw TCP server on 127.0.0.1 (Python), started and stopped by the test, that
/// answers each path with scripted bytes: `/NAME` gets the file `NAME.raw`
/// verbatim, and a path starting with `/drip` gets its file one byte every
/// `dripSeconds`. Every request head received is appended to `requests.log`.
final class ScriptedServer {
    let directory: URL
    let process = Process()
    let input = Pipe()
    let port: Int

    init(dripSeconds: Double = 2) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-inspect-raw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-u", "-c",
            """
            import os, socket, sys, threading, time
            folder, drip = sys.argv[1], float(sys.argv[2])
            threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
            threading.Timer(900, lambda: os._exit(0)).start()  # only if this process's test died: the test ends it
            listener = socket.socket()
            listener.bind(("127.0.0.1", 0))
            listener.listen(16)
            print(listener.getsockname()[1], flush=True)
            def handle(connection):
                try:
                    head = b""
                    while b"\\r\\n\\r\\n" not in head:
                        data = connection.recv(4096)
                        if not data: break
                        head += data
                    with open(os.path.join(folder, "requests.log"), "ab") as log: log.write(head)
                    parts = head.split(b" ")
                    name = (parts[1].decode("latin-1").strip("/").split("?")[0] if len(parts) > 2 else "") or "index"
                    path = os.path.join(folder, name.replace("/", "_") + ".raw")
                    raw = open(path, "rb").read() if os.path.exists(path) else b"HTTP/1.1 404 Not Found\\r\\nContent-Length: 0\\r\\n\\r\\n"
                    if name.startswith("drip"):
                        for byte in raw:
                            connection.sendall(bytes([byte])); time.sleep(drip)
                    else:
                        connection.sendall(raw)
                except OSError:
                    pass
                finally:
                    connection.close()
            while True:
                connection, _ = listener.accept()
                threading.Thread(target=handle, args=(connection,), daemon=True).start()
            """, directory.path, String(dripSeconds),
        ]
        port = try await startServer(process, input: input, what: "the scripted server")
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// Scripts `/name` to answer with `raw`.
    func script(_ name: String, _ raw: String) throws { try script(name, Data(raw.utf8)) }
    func script(_ name: String, _ raw: Data) throws { try raw.write(to: directory.appendingPathComponent("\(name).raw")) }

    /// A 200 response with `body` and a correct Content-Length.
    static func ok(_ body: String, extraHeaders: String = "") -> String {
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\(extraHeaders)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// Every request head received so far.
    var requests: String {
        (try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .isoLatin1)) ?? ""
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()  // brief: reaping a child just killed
        try? FileManager.default.removeItem(at: directory)
    }
}
