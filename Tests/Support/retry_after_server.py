#!/usr/bin/env python3
"""A scripted CIBA provider that asks the client to back off (standard library only).

Binds 127.0.0.1 on a free port, prints the port on stdout, serves until its stdin closes.
  POST /ciba   {"auth_req_id": login_hint, "expires_in": 60, "interval": 1}
  POST /token  CIBA polls, scripted by auth_req_id; every poll's arrival time is recorded:
               "seconds": 503 + Retry-After: 2, then 400 access_denied
               "limited": 429 + Retry-After: 2, then 400 access_denied
               "date":    503 + Retry-After: <HTTP date 3 s ahead>, then 400 access_denied
               "bad":     503 + Retry-After: soon
               "long":    503 + Retry-After: 3600 (past the 60 s expiry)
  GET  /times  {"<auth_req_id>": [arrival time in seconds, ...], ...}
"""
import email.utils, http.server, json, sys, threading, time, urllib.parse

lock = threading.Lock()
times = {}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, body, extra=()):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if urllib.parse.urlsplit(self.path).path == "/times":
            with lock:
                return self.send(200, dict(times))
        self.send(404, {"error": "not_found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode())) if length else {}
        path = urllib.parse.urlsplit(self.path).path
        if path == "/ciba":
            return self.send(200, {"auth_req_id": form.get("login_hint", "seconds"), "expires_in": 60, "interval": 1})
        if path != "/token":
            return self.send(404, {"error": "not_found"})
        key = form.get("auth_req_id", "")
        with lock:
            times.setdefault(key, []).append(time.time())
            n = len(times[key])
        if n > 1:
            return self.send(400, {"error": "access_denied"})
        if key == "seconds":
            return self.send(503, None, [("Retry-After", "2")])
        if key == "limited":
            return self.send(429, {"error": "too_many_requests"}, [("Retry-After", "2")])
        if key == "date":
            return self.send(503, None, [("Retry-After", email.utils.formatdate(time.time() + 3, usegmt=True))])
        if key == "bad":
            return self.send(503, None, [("Retry-After", "soon")])
        if key == "long":
            return self.send(503, None, [("Retry-After", "3600")])
        self.send(400, {"error": "invalid_grant"})


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(server.server_address[1], flush=True)
sys.stdin.read()
server.shutdown()
