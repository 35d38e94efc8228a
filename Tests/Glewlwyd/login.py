#!/usr/bin/env python3
"""Log a user in at the test glewlwyd over plain HTTP, as its login page would (stdlib only).

    python3 login.py --authorize-url URL [--username alice] [--password password]
                     [--base http://127.0.0.1:PORT] [--timeout 10]

Steps: GET the authorization URL (glewlwyd redirects to its login page), POST
BASE/api/auth/ with the credentials (session cookie), PUT BASE/api/auth/grant/CLIENT_ID/
with the requested scopes (the consent), PUT BASE/api/oidc/rar/CLIENT_ID/TYPE/1 for each
`authorization_details` type the URL asks for (RFC 9396 consent), then GET the authorization URL again with
`&g_continue` appended and stop at the redirect to the client's redirect_uri, WITHOUT
fetching it. BASE defaults to the authorization URL's origin; CLIENT_ID and the scopes
come from the authorization URL (a PAR URL carries only client_id and request_uri: pass
--scope then).

stdout: exactly one line, the final redirect URL (with code, state, iss; or error).
Exit codes: 0 redirect carrying `code`; 3 redirect carrying `error` (URL still printed);
1 anything else (message on stderr); 2 usage error.
Only URLs on BASE's origin are ever fetched.
"""

import argparse
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar


class Fail(Exception):
    pass


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # surface 3xx to the caller


def origin(url: str) -> str:
    p = urllib.parse.urlsplit(url)
    return f"{p.scheme}://{p.netloc}"


class Browser:
    def __init__(self, base: str, timeout: float):
        self.base = base
        self.timeout = timeout
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()), _NoRedirect())

    def request(self, method: str, url: str, body=None):
        if origin(url) != origin(self.base):
            raise Fail(f"refusing to fetch a URL outside {origin(self.base)}")
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with self.opener.open(req, timeout=self.timeout) as r:
                return r.status, dict(r.headers), r.read().decode(errors="replace")
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read().decode(errors="replace")


def login(authorize_url: str, username: str, password: str, base: str, scope, timeout: float, browser=None) -> str:
    """The redirect URL after a login; `browser` keeps the session cookie for the caller."""
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(authorize_url).query))
    client_id = query.get("client_id")
    if not client_id:
        raise Fail("the authorization URL has no client_id")
    scope = scope or query.get("scope")
    if not scope:
        raise Fail("no scope in the authorization URL: pass --scope")
    b = browser or Browser(base, timeout)
    status, headers, _ = b.request("GET", authorize_url)
    if status not in (302, 303):
        raise Fail(f"authorization URL answered {status}, expected a redirect to the login page")
    status, _, text = b.request("POST", base + "/api/auth/", {"username": username, "password": password})
    if status != 200:
        raise Fail(f"POST /api/auth/ answered {status}: {text[:200]}")
    status, _, text = b.request("PUT", base + "/api/auth/grant/" + urllib.parse.quote(client_id, safe="") + "/",
                                {"scope": scope})
    if status != 200:
        raise Fail(f"PUT /api/auth/grant/ answered {status}: {text[:200]}")
    # RFC 9396 (glewlwyd's RAR draft 11): the user consents to each requested authorization_details type.
    try:
        requested = json.loads(query.get("authorization_details", "[]"))
        rar_types = list(dict.fromkeys(d["type"] for d in requested))
    except (ValueError, TypeError, KeyError) as e:
        raise Fail(f"authorization_details in the URL is not an array of objects with type: {e}")
    for rar_type in rar_types:
        status, _, text = b.request("PUT", base + "/api/oidc/rar/" + urllib.parse.quote(client_id, safe="") + "/"
                                    + urllib.parse.quote(str(rar_type), safe="") + "/1")
        if status != 200:
            raise Fail(f"PUT /api/oidc/rar/ answered {status}: {text[:200]}")
    status, headers, text = b.request("GET", authorize_url + "&g_continue")
    location = headers.get("Location") or headers.get("location")
    if status not in (302, 303) or not location:
        raise Fail(f"authorization URL with g_continue answered {status} without a redirect: {text[:200]}")
    return location


def main() -> int:
    ap = argparse.ArgumentParser(description="Log in at the test glewlwyd without a browser.")
    ap.add_argument("--authorize-url", required=True)
    ap.add_argument("--username", default="alice")
    ap.add_argument("--password", default="password")
    ap.add_argument("--base", help="glewlwyd's base URL (default: the authorization URL's origin)")
    ap.add_argument("--scope", help="scopes to consent to (default: the authorization URL's scope)")
    ap.add_argument("--timeout", type=float, default=10)
    a = ap.parse_args()
    try:
        location = login(a.authorize_url, a.username, a.password, (a.base or origin(a.authorize_url)).rstrip("/"),
                         a.scope, a.timeout)
    except (Fail, OSError) as e:
        print(f"login.py: {e}", file=sys.stderr)
        return 1
    print(location)
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
    params.update(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).fragment))
    if "code" in params:
        return 0
    if "error" in params:
        return 3
    print("login.py: the redirect carries neither code nor error", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
