#!/usr/bin/env python3
"""A scripted authorization server for the grants glewlwyd 2.7.5 lacks (standard library + openssl).

    python3 grant_server.py --port PORT --assertion-key PUBLIC_PEM

Binds 127.0.0.1:PORT (0: a free port), prints the port on stdout, serves until stdin closes.
POST /token, client authentication `client_secret_basic` with svc / svc-secret (else 401
invalid_client), and:
- grant_type urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693 §2): requires
  subject_token and subject_token_type, actor_token_type with actor_token; subject_token
  "revoked" is invalid_grant. Answers an access token with issued_token_type (the
  requested_token_type, else access_token) and echoes what it received as
  received_audience / received_resource / received_actor_token_type.
- POST /register (RFC 7591, open): metadata asking for client_credentials registers as svc / svc-secret.
- grant_type client_credentials: an access token "cc-for-RESOURCE" for the one `resource` asked for
  (RFC 8707; BASE/api accepts "cc-for-BASE/api" and answers 200).
- grant_type urn:ietf:params:oauth:grant-type:jwt-bearer (RFC 7523 §2.1): the assertion's
  ES256 signature is checked with `openssl dgst -verify PUBLIC_PEM`, aud must be this token
  endpoint's URL, exp in the future, jti not seen before (invalid_grant otherwise); the
  answer's access token names the assertion's sub.
Anything else: 400 unsupported_grant_type.
GET: RFC 8414 metadata of the issuer BASE/tenant at BASE/.well-known/oauth-authorization-server/tenant
(an OAuth-only server: no jwks_uri, no authorization endpoint); BASE/api answers 401 with
`resource_metadata` (RFC 9728) naming BASE/.well-known/oauth-protected-resource/api, whose document
lists BASE/tenant (or --resource-issuer ISSUER: another authorization server, e.g. glewlwyd).
"""
import argparse, base64, http.server, json, os, subprocess, sys, tempfile, threading, time, urllib.parse

SEEN_JTI = set()


def b64d(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def der_from_raw(sig):
    def integer(b):
        b = b.lstrip(b"\x00") or b"\x00"
        if b[0] & 0x80:
            b = b"\x00" + b
        return b"\x02" + bytes([len(b)]) + b
    body = integer(sig[:32]) + integer(sig[32:])
    return b"\x30" + bytes([len(body)]) + body


def es256_valid(signing_input, signature, pem):
    if len(signature) != 64:
        return False
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(der_from_raw(signature))
        sig_path = f.name
    try:
        r = subprocess.run(["openssl", "dgst", "-sha256", "-verify", pem, "-signature", sig_path],
                           input=signing_input, capture_output=True)
        return r.returncode == 0
    finally:
        os.unlink(sig_path)


class Handler(http.server.BaseHTTPRequestHandler):
    assertion_key = ""
    resource_issuer = None  # --resource-issuer: the authorization server BASE/api's metadata names instead of BASE/tenant

    def log_message(self, *args):
        pass

    def answer(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        """RFC 8414 metadata of the issuer BASE/tenant (path inserted), and an RFC 9728 protected resource BASE/api."""
        base = "http://127.0.0.1:%d" % self.server.server_address[1]
        if self.path == "/.well-known/oauth-authorization-server/tenant":
            return self.answer(200, {"issuer": base + "/tenant", "token_endpoint": base + "/token",
                                     "registration_endpoint": base + "/register",
                                     "grant_types_supported": ["client_credentials",
                                                               "urn:ietf:params:oauth:grant-type:token-exchange"]})
        if self.path == "/api" and self.headers.get("Authorization") == "Bearer cc-for-" + base + "/api":
            return self.answer(200, {"ok": True})
        if self.path == "/api":
            body = b'{"error":"unauthorized"}'
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Bearer resource_metadata="%s/.well-known/oauth-protected-resource/api"' % base)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return None
        if self.path == "/.well-known/oauth-protected-resource/api":
            return self.answer(200, {"resource": base + "/api", "authorization_servers": [self.resource_issuer or base + "/tenant"],
                                     "scopes_supported": ["read"], "bearer_methods_supported": ["header"]})
        return self.answer(404, {"error": "not_found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if self.path == "/register":
            # RFC 7591, open registration: a client asking for the client credentials grant is given the one known
            # client (svc / svc-secret, client_secret_basic); anything else is invalid_client_metadata.
            try:
                metadata = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                metadata = {}
            if "client_credentials" not in (metadata.get("grant_types") or []):
                return self.answer(400, {"error": "invalid_client_metadata"})
            return self.answer(201, {"client_id": "svc", "client_secret": "svc-secret", "client_secret_expires_at": 0,
                                     "token_endpoint_auth_method": "client_secret_basic", "grant_types": ["client_credentials"],
                                     "redirect_uris": metadata.get("redirect_uris") or []})
        form = urllib.parse.parse_qs(self.rfile.read(length).decode(), keep_blank_values=True)
        one = lambda name: (form.get(name) or [None])[0]
        if self.path != "/token":
            return self.answer(404, {"error": "not_found"})
        expected = "Basic " + base64.b64encode(b"svc:svc-secret").decode()
        if self.headers.get("Authorization") != expected:
            return self.answer(401, {"error": "invalid_client"})
        grant = one("grant_type")
        if grant == "urn:ietf:params:oauth:grant-type:token-exchange":
            if not one("subject_token") or not one("subject_token_type"):
                return self.answer(400, {"error": "invalid_request", "error_description": "subject_token and its type are required"})
            if bool(one("actor_token")) != bool(one("actor_token_type")):
                return self.answer(400, {"error": "invalid_request", "error_description": "actor_token goes with actor_token_type"})
            if one("subject_token") == "revoked":
                return self.answer(400, {"error": "invalid_grant", "error_description": "the subject token is not active"})
            issued = one("requested_token_type") or "urn:ietf:params:oauth:token-type:access_token"
            return self.answer(200, {"access_token": "exchanged-for-" + one("subject_token_type").rsplit(":", 1)[-1],
                                     "issued_token_type": issued, "token_type": "Bearer", "expires_in": 60,
                                     "scope": one("scope") or "", "received_audience": form.get("audience", []),
                                     "received_resource": form.get("resource", []),
                                     "received_actor_token_type": one("actor_token_type")})
        if grant == "client_credentials":
            # The token names the resource it was asked for (RFC 8707), which BASE/api accepts for itself only.
            resources = form.get("resource", [])
            return self.answer(200, {"access_token": "cc-for-" + (resources[0] if len(resources) == 1 else "?"),
                                     "token_type": "Bearer", "expires_in": 60, "scope": one("scope") or ""})
        if grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            try:
                header, payload, signature = one("assertion").split(".")
                claims = json.loads(b64d(payload))
                ok = json.loads(b64d(header)).get("alg") == "ES256" and es256_valid(
                    (header + "." + payload).encode(), b64d(signature), self.assertion_key)
            except (ValueError, AttributeError):
                ok, claims = False, {}
            token_url = "http://127.0.0.1:%d/token" % self.server.server_address[1]
            if not ok or claims.get("aud") != token_url or claims.get("exp", 0) <= time.time() or claims.get("jti") in SEEN_JTI:
                return self.answer(400, {"error": "invalid_grant", "error_description": "the assertion is not acceptable"})
            SEEN_JTI.add(claims.get("jti"))
            return self.answer(200, {"access_token": "jwt-bearer-for-" + str(claims.get("sub")), "token_type": "Bearer",
                                     "expires_in": 60, "scope": one("scope") or ""})
        return self.answer(400, {"error": "unsupported_grant_type"})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--assertion-key", required=True)
    ap.add_argument("--resource-issuer")
    a = ap.parse_args()
    Handler.assertion_key = a.assertion_key
    Handler.resource_issuer = a.resource_issuer
    server = http.server.ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()  # until the test process closes our stdin
    server.shutdown()


if __name__ == "__main__":
    main()
