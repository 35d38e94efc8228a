#!/usr/bin/env python3
"""A scripted Token Status List host for the tests (standard library only).

Binds 127.0.0.1 on a free port, prints the port on stdout, and serves until its stdin closes.
The test signs the status list tokens itself and puts them here:
  PUT  /lists/NAME   store the body (a compact JWS), served to GET /lists/NAME as application/statuslist+jwt
  GET  /lists/NAME   the stored token (404 when none), counted
  GET  /count/NAME   how many GETs /lists/NAME has had, as a decimal number
  GET  /big          200 with a 2 MiB body (over the default token bound)
  GET  /fail         503
"""
import http.server, os, sys, threading

tokens = {}
counts = {}
lock = threading.Lock()

class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_PUT(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path.startswith("/lists/"):
            with lock:
                tokens[self.path] = body
            self.send(204, b"")
        else:
            self.send(404, b"not found")

    def do_GET(self):
        path = self.path.split("?")[0]
        if path.startswith("/lists/"):
            with lock:
                counts[path] = counts.get(path, 0) + 1
                token = tokens.get(path)
            if token is None:
                self.send(404, b"not found")
            elif self.headers.get("Accept") != "application/statuslist+jwt":
                self.send(406, b"not acceptable")
            else:
                self.send(200, token, "application/statuslist+jwt")
        elif path.startswith("/count/"):
            with lock:
                count = counts.get("/lists/" + path[len("/count/"):], 0)
            self.send(200, str(count).encode())
        elif path == "/big":
            self.send(200, b"a" * (2 << 20), "application/statuslist+jwt")
        elif path == "/fail":
            self.send(503, b"down")
        else:
            self.send(404, b"not found")

def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    os._exit(0)

if __name__ == "__main__":
    main()
