"""Stdlib-only helpers shared by smoke_flow.py and rotation_flow.py."""

import base64
import hashlib
import json
import os
import secrets
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REDIRECT_URI = "http://127.0.0.1:8765/callback"
CLIENTS = {
    "client-basic": "secret-basic",
    "client-post": "secret-post",
    "client-public": None,
}


class SmokeFailure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise SmokeFailure(msg)
    print(f"  ok: {msg}")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None


_opener = urllib.request.build_opener(_NoRedirect())


class Resp:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    @property
    def ctype(self):
        return self.headers.get("Content-Type", "")

    def json(self):
        return json.loads(self.body)

    def describe(self):
        extra = ""
        if self.headers.get("WWW-Authenticate"):
            extra = f" | WWW-Authenticate: {self.headers['WWW-Authenticate']}"
        if self.headers.get("Cache-Control"):
            extra += f" | Cache-Control: {self.headers['Cache-Control']}"
        return f"HTTP {self.status} | Content-Type: {self.ctype}{extra} | body: {self.body.strip()[:400]}"


def http(method, url, form=None, headers=None, basic=None, bearer=None):
    h = dict(headers or {})
    data = None
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        h["Content-Type"] = "application/x-www-form-urlencoded"
    if basic:
        cid, sec = basic
        # RFC 6749 2.3.1: form-urlencode id and secret before base64.
        raw = f"{urllib.parse.quote_plus(cid)}:{urllib.parse.quote_plus(sec)}".encode()
        h["Authorization"] = "Basic " + base64.b64encode(raw).decode()
    if bearer:
        h["Authorization"] = "Bearer " + bearer
    req = urllib.request.Request(url, data=data, headers=h, method=method)
    try:
        r = _opener.open(req, timeout=15)
    except urllib.error.HTTPError as e:
        r = e
    status = getattr(r, "status", None) or r.code
    return Resp(status, r.headers, r.read().decode("utf-8", "replace"))


def pkce():
    verifier = b64url(secrets.token_bytes(32))
    challenge = b64url(hashlib.sha256(verifier.encode()).digest())
    return verifier, challenge


def authorize_url(disco, client_id, scope="openid profile email", challenge=None, state=None,
                  nonce=None, claims=None, extra=None):
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT_URI,
        "scope": scope,
    }
    if state:
        params["state"] = state
    if nonce:
        params["nonce"] = nonce
    if challenge:
        params["code_challenge"] = challenge
        params["code_challenge_method"] = "S256"
    if claims is not None:
        params["claims"] = claims if isinstance(claims, str) else json.dumps(claims)
    params.update(extra or {})
    return disco["authorization_endpoint"] + "?" + urllib.parse.urlencode(params)


def run_login(url):
    """Runs login.py; returns (exit code, stdout line, stderr)."""
    p = subprocess.run([sys.executable, os.path.join(HERE, "login.py"), "--authorize-url", url],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def login_for_code(disco, client_id, **kw):
    verifier, challenge = pkce()
    state, nonce = secrets.token_urlsafe(12), secrets.token_urlsafe(12)
    kw.setdefault("challenge", challenge)
    url = authorize_url(disco, client_id, state=state, nonce=nonce, **kw)
    rc, out, err = run_login(url)
    if rc != 0:
        raise SmokeFailure(f"login.py failed rc={rc}: {out} {err}")
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(out).query)
    check(q.get("state") == [state], f"{client_id}: callback carries our state")
    check("code" in q, f"{client_id}: callback carries a code")
    return q["code"][0], verifier, nonce


def exchange(disco, client_id, code, verifier, auth="basic", secret=None):
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI}
    if verifier is not None:
        form["code_verifier"] = verifier
    secret = CLIENTS[client_id] if secret is None else secret
    basic = None
    if auth == "basic":
        basic = (client_id, secret)
    elif auth == "post":
        form["client_id"] = client_id
        form["client_secret"] = secret
    else:  # public client: client_id only
        form["client_id"] = client_id
    return http("POST", disco["token_endpoint"], form=form, basic=basic)


def client_auth(client_id, form, auth):
    """Adds client authentication (basic/post/none) to a form; returns basic tuple or None."""
    secret = CLIENTS[client_id]
    if auth == "basic":
        return (client_id, secret)
    form["client_id"] = client_id
    if auth == "post":
        form["client_secret"] = secret
    return None


def refresh(disco, client_id, refresh_token, auth):
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token}
    basic = client_auth(client_id, form, auth)
    return http("POST", disco["token_endpoint"], form=form, basic=basic)


def revoke(disco, client_id, token, hint, auth):
    form = {"token": token, "token_type_hint": hint}
    basic = client_auth(client_id, form, auth)
    url = disco["issuer"] + "/revoke_token/"
    return http("POST", url, form=form, basic=basic)


# --- RS256 verification with the standard library only -------------------
_SHA256_DIGESTINFO = bytes.fromhex("3031300d060960864801650304020105000420")


def jwt_parts(token):
    h, p, s = token.split(".")
    return json.loads(b64url_decode(h)), json.loads(b64url_decode(p)), (h + "." + p).encode(), b64url_decode(s)


def rs256_verify(jwk, signing_input, sig):
    n = int.from_bytes(b64url_decode(jwk["n"]), "big")
    e = int.from_bytes(b64url_decode(jwk["e"]), "big")
    k = (n.bit_length() + 7) // 8
    if len(sig) != k:
        return False
    em = pow(int.from_bytes(sig, "big"), e, n).to_bytes(k, "big")
    t = _SHA256_DIGESTINFO + hashlib.sha256(signing_input).digest()
    return em == b"\x00\x01" + b"\xff" * (k - len(t) - 3) + b"\x00" + t


def verify_id_token(id_token, jwks, issuer, client_id, nonce=None):
    header, claims, signing_input, sig = jwt_parts(id_token)
    check(header.get("alg") == "RS256", f"id_token alg RS256 (header {header})")
    keys = {k["kid"]: k for k in jwks["keys"]}
    check(header.get("kid") in keys, f"id_token kid {header.get('kid')} is in the JWKS")
    check(rs256_verify(keys[header["kid"]], signing_input, sig), "id_token RS256 signature verifies (stdlib)")
    check(claims.get("iss") == issuer, f"id_token iss == {issuer}")
    aud = claims.get("aud")
    check(aud == client_id or (isinstance(aud, list) and client_id in aud), f"id_token aud contains {client_id}")
    if nonce is not None:
        check(claims.get("nonce") == nonce, "id_token nonce echoes the request nonce")
    return header, claims
