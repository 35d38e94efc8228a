#!/usr/bin/env python3
"""A scripted credential issuer's host for the tests (standard library only): Token Status Lists and
JWT VC issuer metadata.

Binds 127.0.0.1 on a free port, prints the port on stdout, and serves until its stdin closes.
The test signs the tokens and writes the documents itself and puts them here:
  PUT  /PATH         store the body with the request's Content-Type, served to GET /PATH
  GET  /lists/NAME   a stored status list token (404 when none; 406 unless Accept is application/statuslist+jwt), counted
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
        with lock:
            tokens[self.path] = (body, self.headers.get("Content-Type") or "application/octet-stream")
        self.send(204, b"")

    def do_GET(self):
        path = self.path.split("?")[0]
        if path.startswith("/lists/"):
            with lock:
                counts[path] = counts.get(path, 0) + 1
                stored = tokens.get(path)
            if stored is None:
                self.send(404, b"not found")
            elif self.headers.get("Accept") != "application/statuslist+jwt":
                self.send(406, b"not acceptable")
            else:
                self.send(200, stored[0], "application/statuslist+jwt")
        elif path.startswith("/count/"):
            with lock:
                count = counts.get("/lists/" + path[len("/count/"):], 0)
            self.send(200, str(count).encode())
        elif path == "/big":
            self.send(200, b"a" * (2 << 20), "application/statuslist+jwt")
        elif path == "/fail":
            self.send(503, b"down")
        else:
            with lock:
                stored = tokens.get(path)
            if stored is None:
                self.send(404, b"not found")
            else:
                self.send(200, stored[0], stored[1])

def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    os._exit(0)

if __name__ == "__main__":
    main()
