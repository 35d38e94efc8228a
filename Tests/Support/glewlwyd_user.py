#!/usr/bin/env python3
"""The user's side of glewlwyd's decoupled flows, over plain HTTP as its web pages do it (stdlib only).

    python3 glewlwyd_user.py ciba   --base BASE --client-id ID --scope S [--binding-message M] [--deny] [--announce-session]
                                    [--username alice] [--password password]
    python3 glewlwyd_user.py device --base BASE --client-id ID --scope S --user-code CODE [--username ...]

Both log the user in (POST BASE/api/auth/, session cookie) and consent to the scopes for the
client (PUT BASE/api/auth/grant/ID/). `ciba` then lists the user's pending CIBA requests
(GET BASE/api/oidc/ciba_user_list), takes the newest one for the client (and with
--binding-message, the one carrying that message: tests running side by side each pick their own) and approves it
(GET .../ciba_user_check?user_req_id=...&g_continue) or, with --deny, cancels it (&cancel).
`device` opens the verification page with the user code (GET BASE/api/oidc/device?code=CODE&g_continue).
Exit 0 when glewlwyd accepted the step; 1 otherwise (message on stderr); 2 usage.
Only URLs on BASE's origin are fetched; redirects are not followed.
"""

import argparse
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class Browser:
    def __init__(self, base):
        self.base = base.rstrip("/")
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()), NoRedirect())

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with self.opener.open(req, timeout=10) as r:
                return r.status, dict(r.headers), r.read().decode(errors="replace")
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read().decode(errors="replace")


def fail(message):
    print(f"glewlwyd_user.py: {message}", file=sys.stderr)
    sys.exit(1)


def session(a):
    b = Browser(a.base)
    status, _, text = b.call("POST", "/api/auth/", {"username": a.username, "password": a.password})
    if status != 200:
        fail(f"POST /api/auth/ answered {status}: {text[:200]}")
    status, _, text = b.call("PUT", "/api/auth/grant/" + urllib.parse.quote(a.client_id, safe="") + "/", {"scope": a.scope})
    if status != 200:
        fail(f"PUT /api/auth/grant/ answered {status}: {text[:200]}")
    return b


def ciba(a):
    b = session(a)
    if a.announce_session:
        # The caller starts the client only now: glewlwyd 2.7.5 on SQLite fails a row written beside
        # another (it reads the new id back as the connection's last insert id).
        print("session open", flush=True)
    request_id = None
    # The request may not be listed yet (the client is a separate process that may start
    # slowly on a loaded machine): look until a deadline, not a fixed number of times.
    deadline = time.monotonic() + a.wait_seconds
    while time.monotonic() < deadline:
        status, _, text = b.call("GET", "/api/oidc/ciba_user_list")
        if status == 200 and text.strip():
            items = json.loads(text)
            items = items if isinstance(items, list) else [items]
            mine = [i for i in items if i.get("client_id") == a.client_id
                    and (a.binding_message is None or i.get("binding_message") == a.binding_message)]
            if mine:
                request_id = mine[-1]["user_req_id"]
                break
        time.sleep(0.1)
    if not request_id:
        fail("no pending CIBA request for the client in ciba_user_list")
    action = "cancel" if a.deny else "g_continue"
    status, headers, text = b.call("GET", "/api/oidc/ciba_user_check?user_req_id=" + urllib.parse.quote(request_id) + "&" + action)
    location = headers.get("Location") or headers.get("location") or ""
    if status not in (200, 302, 303):
        fail(f"ciba_user_check answered {status}: {text[:200]}")
    print(location or status)


def device(a):
    b = session(a)
    status, headers, text = b.call("GET", "/api/oidc/device?code=" + urllib.parse.quote(a.user_code) + "&g_continue")
    location = headers.get("Location") or headers.get("location") or ""
    if status not in (200, 302, 303) or "Error" in location:
        fail(f"device verification answered {status} {location}: {text[:200]}")
    print(location or status)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("flow", choices=["ciba", "device"])
    ap.add_argument("--base", required=True)
    ap.add_argument("--client-id", required=True)
    ap.add_argument("--scope", required=True)
    ap.add_argument("--user-code")
    ap.add_argument("--binding-message")
    ap.add_argument("--wait-seconds", type=float, default=120.0,
                    help="ciba: how long to look for the pending request (default 120)")
    ap.add_argument("--deny", action="store_true")
    ap.add_argument("--announce-session", action="store_true",
                    help="ciba: print 'session open' once the user is logged in and has consented, before looking")
    ap.add_argument("--username", default="alice")
    ap.add_argument("--password", default="password")
    a = ap.parse_args()
    if a.flow == "device" and not a.user_code:
        ap.error("device needs --user-code")
    ciba(a) if a.flow == "ciba" else device(a)


if __name__ == "__main__":
    main()
