#!/usr/bin/env python3
"""A scripted RFC 7662 introspection endpoint whose answers say a token is bound (standard library only).

    python3 introspection_server.py [--port PORT]

Binds 127.0.0.1:PORT (0, the default: a free port), prints the port on stdout, serves until stdin closes.
POST /introspect, client authentication `client_secret_basic` with rs / rs-secret (else 401 invalid_client),
form parameter `token`. The answer depends on the token only:
- `jkt.THUMBPRINT`: active, `token_type` DPoP, `cnf: {"jkt": THUMBPRINT}` (RFC 9449 §6.2);
- `x5t.THUMBPRINT`: active, `cnf: {"x5t#S256": THUMBPRINT}` (RFC 8705 §3.2);
- `unbound`: active, no `cnf`;
- anything else: `{"active": false}`.
An active answer has `scope` "api.read", `client_id` "app", `sub` "alice", `aud` https://rs.example/api and an `exp`
an hour ahead. GET /count answers the number of introspection requests received so far (as text).
"""
import argparse, base64, http.server, json, sys, threading, time, urllib.parse

COUNT = [0]
LOCK = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="application/json"):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/count":
            with LOCK:
                self.answer(200, str(COUNT[0]), "text/plain")
        else:
            self.answer(404, json.dumps({"error": "not_found"}))

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
        if self.path != "/introspect":
            return self.answer(404, json.dumps({"error": "not_found"}))
        expected = "Basic " + base64.b64encode(b"rs:rs-secret").decode()
        if self.headers.get("Authorization") != expected:
            return self.answer(401, json.dumps({"error": "invalid_client"}))
        with LOCK:
            COUNT[0] += 1
        token = form.get("token", "")
        active = {"active": True, "scope": "api.read", "client_id": "app", "sub": "alice",
                  "aud": "https://rs.example/api", "exp": int(time.time()) + 3600}
        if token.startswith("jkt.") and len(token) > 4:
            answer = dict(active, token_type="DPoP", cnf={"jkt": token[4:]})
        elif token.startswith("x5t.") and len(token) > 4:
            answer = dict(active, token_type="Bearer", cnf={"x5t#S256": token[4:]})
        elif token == "unbound":
            answer = dict(active, token_type="Bearer")
        else:
            answer = {"active": False}
        self.answer(200, json.dumps(answer))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    a = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()  # until the test process closes our stdin
    server.shutdown()


if __name__ == "__main__":
    main()
