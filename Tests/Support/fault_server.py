#!/usr/bin/env python3
"""A tiny misbehaving HTTP server for the integration tests (standard library only).

Binds 127.0.0.1 on a free port, prints the port on stdout, and serves until its
stdin closes (the test process ends) or it is killed. Paths:
  /server-error  500 text/html page      /html     200 text/html page
  /empty         200 empty body          /garbage  200 bytes that are not JSON
  /slow          answers after 10 s      /redirect 302 to /ok
  /big           200 with a 2 MiB body   /ok       200 token response JSON
  /dpop/...      a provider (issuer http://127.0.0.1:PORT/dpop) whose token endpoint answers token_type DPoP
"""
import json
import http.server, os, sys, threading, time

class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="text/html; charset=utf-8", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        path = self.path.split("?")[0]
        if path == "/server-error":
            self.send(500, b"<html><body><h1>Server Error (500)</h1></body></html>")
        elif path == "/html":
            self.send(200, b"<!doctype html><html><head><title>Sign in</title></head><body>login</body></html>")
        elif path == "/empty":
            self.send(200, b"", "application/json")
        elif path == "/garbage":
            self.send(200, b"\x00\x01not json at all \xff{", "application/json")
        elif path == "/slow":
            time.sleep(10)
            self.send(200, b"{}", "application/json")
        elif path == "/redirect":
            self.send(302, b"", extra=[("Location", "/ok")])
        elif path == "/big":
            self.send(200, b"{\"pad\":\"" + b"a" * (2 << 20) + b"\"}", "application/json")
        elif path == "/dpop/.well-known/openid-configuration":
            issuer = "http://127.0.0.1:%d/dpop" % self.server.server_address[1]
            document = {"issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
                        "jwks_uri": issuer + "/jwks", "response_types_supported": ["code"],
                        "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"]}
            self.send(200, json.dumps(document).encode(), "application/json")
        elif path == "/dpop/token":
            self.send(200, b'{"access_token":"x","token_type":"DPoP","id_token":"a.b.c"}', "application/json")
        elif path == "/ok":
            self.send(200, b'{"access_token":"x","token_type":"Bearer"}', "application/json")
        else:
            self.send(404, b"not found", "text/plain")

    do_GET = handle_any
    do_POST = handle_any

def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # returns when the parent closes stdin or exits
    os._exit(0)

if __name__ == "__main__":
    main()
