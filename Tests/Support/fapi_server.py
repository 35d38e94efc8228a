#!/usr/bin/env python3
"""A scripted authorization and resource server for the DPoP, CIBA and device-grant
tests (standard library only): what glewlwyd 2.7.5 does not do on demand (DPoP nonces).

Binds 127.0.0.1 on a free port, prints the port on stdout, and serves until its stdin
closes. It checks the DPoP proof's claims (typ, htm, htu, nonce, ath) but not its
signature (the library's own tests verify signatures). Paths:
  POST /token       DPoP required. A proof without the current nonce gets 400
                    use_dpop_nonce + DPoP-Nonce; grant types: refresh_token and
                    client_credentials -> DPoP token "at-N"; CIBA (auth_req_id
                    "approve": pending, slow_down, pending, tokens; "deny": pending,
                    access_denied); device_code "dev-1": pending, then tokens.
  POST /ciba        {"auth_req_id": login_hint, "expires_in": 60, "interval": 1}
  POST /device      {"device_code": "dev-1", "user_code": "ABCD-EFGH", ...}
  GET  /resource    Authorization: DPoP <token> with a proof carrying ath and the
                    resource server's nonce, else 401 WWW-Authenticate: DPoP
                    error="use_dpop_nonce" + DPoP-Nonce.
  GET  /stats       {"path": count, ...} of the requests so far.
"""
import base64, hashlib, http.server, json, os, sys, threading, urllib.parse

lock = threading.Lock()
stats = {}
polls = {}
state = {"as_nonce": "as-nonce-1", "rs_nonce": "rs-nonce-1", "tokens": 0, "issued": set()}


def b64url_json(segment):
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


def ath(token):
    return base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()


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

    def proof(self):
        """The DPoP proof's claims when its shape and target are right, else None."""
        text = self.headers.get("DPoP")
        if not text or text.count(".") != 2:
            return None
        header, claims = b64url_json(text.split(".")[0]), b64url_json(text.split(".")[1])
        if header.get("typ") != "dpop+jwt" or "jwk" not in header or "d" in header["jwk"]:
            return None
        url = "http://127.0.0.1:%d%s" % (self.server.server_address[1], urllib.parse.urlsplit(self.path).path)
        if claims.get("htm") != self.command or claims.get("htu") != url or not claims.get("jti"):
            return None
        return claims

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode())) if length else {}
        path = urllib.parse.urlsplit(self.path).path
        with lock:
            stats[path] = stats.get(path, 0) + 1
        if path == "/stats":
            with lock:
                return self.send(200, dict(stats))
        if path == "/ciba":
            return self.send(200, {"auth_req_id": form.get("login_hint", "approve"), "expires_in": 60, "interval": 1})
        if path == "/device":
            return self.send(200, {"device_code": "dev-1", "user_code": "ABCD-EFGH", "expires_in": 60, "interval": 1,
                                   "verification_uri": "http://127.0.0.1/device"})
        if path == "/token":
            return self.token(form)
        if path == "/resource":
            return self.resource()
        self.send(404, {"error": "not_found"})

    def token(self, form):
        claims = self.proof()
        if claims is None:
            return self.send(400, {"error": "invalid_dpop_proof"})
        with lock:
            nonce = state["as_nonce"]
        if claims.get("nonce") != nonce:
            return self.send(400, {"error": "use_dpop_nonce", "error_description": "Authorization server requires nonce in DPoP proof"},
                             [("DPoP-Nonce", nonce)])
        grant = form.get("grant_type", "")
        key = form.get("auth_req_id") or form.get("device_code") or ""
        with lock:
            n = polls[key] = polls.get(key, 0) + 1
        script = {"approve": ["authorization_pending", "slow_down", "authorization_pending", None],
                  "deny": ["authorization_pending", "access_denied"], "dev-1": ["authorization_pending", None]}
        if grant.startswith("urn:"):
            steps = script.get(key, ["invalid_grant"])
            step = steps[min(n, len(steps)) - 1]
            if step is not None:
                return self.send(400, {"error": step})
        with lock:
            state["tokens"] += 1
            token = "at-%d" % state["tokens"]
            state["issued"].add(token)
            state["as_nonce"] = "as-nonce-%d" % (state["tokens"] + 1)
            fresh = state["as_nonce"]
        self.send(200, {"access_token": token, "token_type": "DPoP", "expires_in": 300, "refresh_token": "rt-%s" % token},
                  [("DPoP-Nonce", fresh)])

    def resource(self):
        auth = self.headers.get("Authorization", "")
        claims = self.proof()
        with lock:
            nonce, issued = state["rs_nonce"], set(state["issued"])
        challenge = [("WWW-Authenticate", 'DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof"'),
                     ("DPoP-Nonce", nonce)]
        if not auth.startswith("DPoP ") or claims is None or auth[5:] not in issued or claims.get("ath") != ath(auth[5:]):
            return self.send(401, None, [("WWW-Authenticate", 'DPoP error="invalid_token"')])
        if claims.get("nonce") != nonce:
            return self.send(401, None, challenge)
        self.send(200, {"ok": True, "token": auth[5:]})

    do_GET = handle_any
    do_POST = handle_any


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
