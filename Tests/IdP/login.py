#!/usr/bin/env python3
"""Log a user in at the test IdP over plain HTTP, no browser (stdlib only).

    python3 login.py --authorize-url URL [--username alice] [--password alice-password-1]
                     [--cookie-jar FILE] [--timeout 10]

Steps: GET the authorize URL -> redirected to the Django login form -> read the
CSRF token -> POST the credentials -> follow redirects back to the authorize
endpoint -> stop at the redirect whose target is the client's redirect_uri
(taken from the authorize URL), WITHOUT fetching it.

stdout: exactly one line, that final redirect URL (with code & state, or error).
Exit codes:
  0  redirect to redirect_uri carrying `code`
  3  redirect to redirect_uri carrying `error` (URL still printed on stdout)
  1  anything else (bad credentials, IdP error page, unexpected response); message on stderr
  2  usage error
A consent page (skip_authorization=False clients) is approved automatically.
Only URLs on the authorize URL's own origin are ever fetched.
"""

import argparse
import http.cookiejar
import sys
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser

MAX_STEPS = 15


class Fail(Exception):
    pass


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # surface 3xx to the caller


class _Forms(HTMLParser):
    """Collects <form> elements with their <input>/<button> fields."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = []
        self._cur = None

    def handle_starttag(self, tag, attrs):
        a = {k: (v or "") for k, v in attrs}
        if tag == "form":
            self._cur = {"action": a.get("action", ""), "method": a.get("method", "get").lower(),
                         "id": a.get("id", ""), "fields": [], "submits": []}
            self.forms.append(self._cur)
        elif self._cur is not None and tag in ("input", "button"):
            typ = a.get("type", "submit" if tag == "button" else "text").lower()
            name = a.get("name")
            if typ == "submit":
                if name:
                    self._cur["submits"].append((name, a.get("value", "")))
            elif name and typ not in ("checkbox", "radio") or (name and "checked" in a):
                self._cur["fields"].append((name, a.get("value", "")))

    def handle_endtag(self, tag):
        if tag == "form":
            self._cur = None


def _origin(url):
    p = urllib.parse.urlsplit(url)
    return (p.scheme, p.hostname, p.port or (443 if p.scheme == "https" else 80))


def _same_target(url, redirect_uri):
    a, b = urllib.parse.urlsplit(url), urllib.parse.urlsplit(redirect_uri)
    return _origin(url) == _origin(redirect_uri) and (a.path or "/") == (b.path or "/")


def login(authorize_url, username, password, cookie_jar=None, timeout=10.0):
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(authorize_url).query)
    redirect_uri = (q.get("redirect_uri") or [None])[0]
    if not redirect_uri:
        raise Fail("the authorize URL has no redirect_uri parameter")
    idp_origin = _origin(authorize_url)

    jar = http.cookiejar.MozillaCookieJar(cookie_jar) if cookie_jar else http.cookiejar.CookieJar()
    if cookie_jar:
        try:
            jar.load(ignore_discard=True, ignore_expires=True)
        except FileNotFoundError:
            pass
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), _NoRedirect())

    def fetch(url, data=None, referer=None):
        if _origin(url) != idp_origin:
            raise Fail(f"refusing to fetch {url}: not on the IdP origin and not the redirect_uri")
        headers = {"User-Agent": "test-idp-login/1"}
        if referer:
            headers["Referer"] = referer
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(url, data=body, headers=headers)
        try:
            resp = opener.open(req, timeout=timeout)
        except urllib.error.HTTPError as e:  # 3xx (redirects disabled) and 4xx/5xx land here
            resp = e
        status = resp.status if hasattr(resp, "status") else resp.code
        text = resp.read().decode("utf-8", "replace")
        return status, resp.headers, text

    url, data, referer = authorize_url, None, None
    posted_login = False
    for _ in range(MAX_STEPS):
        status, headers, text = fetch(url, data, referer)
        if status in (301, 302, 303, 307, 308):
            location = headers.get("Location")
            if not location:
                raise Fail(f"{status} from {url} without Location")
            nxt = urllib.parse.urljoin(url, location)
            if _same_target(nxt, redirect_uri):
                if cookie_jar:
                    jar.save(ignore_discard=True, ignore_expires=True)
                return nxt
            url, data, referer = nxt, None, None
            continue
        if status != 200:
            raise Fail(f"HTTP {status} from {url}: {text.strip()[:500]}")
        parser = _Forms()
        parser.feed(text)
        forms = [f for f in parser.forms if f["method"] == "post"]
        login_form = next((f for f in forms if any(n == "password" for n, _ in f["fields"])), None)
        if login_form is not None:
            if posted_login:
                raise Fail(f"login rejected for user {username!r} (the login form came back)")
            fields = dict(login_form["fields"])
            if "csrfmiddlewaretoken" not in fields:
                raise Fail("login form has no csrfmiddlewaretoken")
            fields["username"], fields["password"] = username, password
            referer, url = url, urllib.parse.urljoin(url, login_form["action"] or url)
            data, posted_login = fields, True
            continue
        consent = next((f for f in forms if any(n == "allow" for n, _ in f["submits"])), None)
        if consent is not None:
            fields = dict(consent["fields"])
            fields["allow"] = dict(consent["submits"])["allow"] or "Authorize"
            referer, url = url, urllib.parse.urljoin(url, consent["action"] or url)
            data = fields
            continue
        raise Fail(f"unexpected 200 page at {url}: {text.strip()[:500]}")
    raise Fail(f"gave up after {MAX_STEPS} requests without reaching {redirect_uri}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--authorize-url", required=True)
    ap.add_argument("--username", default="alice")
    ap.add_argument("--password", default="alice-password-1")
    ap.add_argument("--cookie-jar", help="Mozilla-format cookie file to load/save (reuse the IdP session)")
    ap.add_argument("--timeout", type=float, default=10.0, help="per-request timeout, seconds")
    args = ap.parse_args(argv)
    try:
        final = login(args.authorize_url, args.username, args.password, args.cookie_jar, args.timeout)
    except Fail as e:
        print(f"login.py: {e}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as e:
        print(f"login.py: network error: {e}", file=sys.stderr)
        return 1
    print(final)
    params = urllib.parse.parse_qs(urllib.parse.urlsplit(final).query)
    if "code" in params:
        return 0
    print(f"login.py: authorization error: {params.get('error', ['?'])[0]}"
          f" {params.get('error_description', [''])[0]}", file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main())
