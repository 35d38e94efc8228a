#!/usr/bin/env python3
"""Make the test glewlwyd send a real back-channel logout token, and hand it over (stdlib only).

    python3 logout.py --issuer ISSUER --client-id ID --client-secret SECRET --logout-uri URI
                      [--redirect-uri URI] [--username alice] [--password password] [--timeout 10]

Listens on the logout URI's loopback port, logs the user in for the client (as login.py
does, in this process so the session cookie is kept), redeems the code, then ends the
session the way glewlwyd's logout page does (DELETE BASE/api/oidc/session/{sid}/): glewlwyd
then POSTs a logout token to the client's backchannel_logout_uri.

stdout: one JSON object {"content_type": ..., "body": ..., "sid": ..., "sub": ...} — the
request glewlwyd sent, verbatim, and the ID Token's sid and sub (unverified, for comparison).
Exit codes: 0 received; 1 anything else (message on stderr); 2 usage error.
"""

import argparse
import base64
import http.server
import json
import sys
import threading
import urllib.parse
import urllib.request

sys.path.insert(0, __import__("os").path.dirname(__file__))
from login import Browser, Fail, login  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--issuer", required=True)
    ap.add_argument("--client-id", required=True)
    ap.add_argument("--client-secret", required=True)
    ap.add_argument("--logout-uri", required=True)
    ap.add_argument("--redirect-uri", default="http://127.0.0.1:9451/callback")
    ap.add_argument("--username", default="alice")
    ap.add_argument("--password", default="password")
    ap.add_argument("--timeout", type=float, default=10)
    a = ap.parse_args()
    target = urllib.parse.urlsplit(a.logout_uri)
    if target.hostname != "127.0.0.1" or not target.port:
        print("logout.py: the logout URI must be http://127.0.0.1:PORT/...", file=sys.stderr)
        return 2
    base = a.issuer.rsplit("/api/", 1)[0]

    received = []
    done = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            received.append({"path": self.path, "content_type": self.headers.get("Content-Type"),
                             "body": self.rfile.read(length).decode(errors="replace")})
            self.send_response(200)
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            done.set()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", target.port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        query = urllib.parse.urlencode({"response_type": "code", "client_id": a.client_id, "redirect_uri": a.redirect_uri,
                                        "scope": "openid", "state": "logout-test", "nonce": "logout-test"})
        browser = Browser(base, a.timeout)
        location = login(a.issuer + "/auth?" + query, a.username, a.password, base, None, a.timeout, browser=browser)
        code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query)).get("code")
        if not code:
            raise Fail("the login gave no code")
        basic = base64.b64encode(f"{urllib.parse.quote(a.client_id, safe='')}:{urllib.parse.quote(a.client_secret, safe='')}".encode()).decode()
        request = urllib.request.Request(a.issuer + "/token", headers={"Authorization": "Basic " + basic}, data=urllib.parse.urlencode(
            {"grant_type": "authorization_code", "code": code, "redirect_uri": a.redirect_uri}).encode())
        with urllib.request.urlopen(request, timeout=a.timeout) as r:
            tokens = json.load(r)
        payload = tokens["id_token"].split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        status, _, text = browser.request("DELETE", base + "/api/oidc/session/" + urllib.parse.quote(claims["sid"], safe="") + "/")
        if status != 200:
            raise Fail(f"ending the session answered {status}: {text[:200]}")
        if not done.wait(a.timeout):
            raise Fail("glewlwyd sent no logout token within the timeout")
    except (Fail, OSError, KeyError, ValueError) as e:
        print(f"logout.py: {e}", file=sys.stderr)
        return 1
    finally:
        server.shutdown()
    print(json.dumps({"content_type": received[0]["content_type"], "body": received[0]["body"],
                      "sid": claims.get("sid"), "sub": claims.get("sub")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
