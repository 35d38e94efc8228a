#!/usr/bin/env python3
"""End-to-end tests of the sample web apps against the repository's test providers: the same cases against
Samples/hummingbird-app and Samples/vapor-app (one command line, routes, cookies and answers).

    python3 app_tests.py --binary PATH [--app hummingbird-app|vapor-app]
        [--only cli|browser|glewlwyd|replicas|redis|mtls|request-object|ssf|ssf-poll|ssf-replicas|mcp]...

Run by run.sh (which builds the app once and makes the selenium venv). Reads IDP_ISSUER,
GLEWLWYD_ISSUER / GLEWLWYD_BASE / GLEWLWYD_RESOURCE, GLEWLWYD_TLS_* (the TLS glewlwyd, RFC 8705), PG_URL and
REDIS_URL / REDIS_TLS_URL / REDIS_TLS_CA, VALKEY_URL; a part whose provider is
missing is skipped with a message (an error under CI=true). Every wait is on an event (a port
opening, an HTTP answer) with a deadline, never a fixed sleep.
"""

import argparse
import base64
import hashlib
import html
import importlib.util
import json
import os
import re
import secrets
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
CI = os.environ.get("CI") == "true"
PORT_BASE = int(os.environ.get("HBAPP_PORT_BASE", "8460"))
WORK = os.environ.get("HBAPP_WORK") or os.path.join(HERE, ".run")
APP = "hummingbird-app"  # the app under test (--app): names the log lines and the folder of its logs

checks = {"passed": 0, "failed": 0, "skipped": 0}


def log(message):
    print(f"==> {APP}: {message}", file=sys.stderr, flush=True)


def check(condition, what):
    if condition:
        checks["passed"] += 1
        print(f"ok   {what}", flush=True)
    else:
        checks["failed"] += 1
        print(f"FAIL {what}", flush=True)
    return condition


def skip(part, why):
    if CI:
        check(False, f"{part}: {why} (required under CI=true)")
    else:
        checks["skipped"] += 1
        print(f"skip {part}: {why}", flush=True)


def load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)  # a poll interval, not a timing assumption: the deadline decides
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


# MARK: - HTTP without redirects, with a cookie jar per "browser"

class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class Client:
    def __init__(self):
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect())

    def request(self, method, url, body=None, headers=None, timeout=15):
        req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
        try:
            with self.opener.open(req, timeout=timeout) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()

    def get(self, url, **kw):
        return self.request("GET", url, **kw)

    def cookie(self, name):
        return next((c.value for c in self.jar if c.name == name), None)


def set_cookies(headers):
    return headers.get_all("Set-Cookie") or []


# MARK: - App processes

class App:
    def __init__(self, binary, name, port, args):
        self.name, self.port = name, port
        os.makedirs(os.path.join(WORK, APP), exist_ok=True)
        self.log_path = os.path.join(WORK, APP, f"{name}.log")
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen([binary, "--port", str(port), "--log-level", "trace"] + args,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        def up():
            if self.process.poll() is not None:
                raise AssertionError(f"{name} exited with {self.process.returncode}: {self.tail()}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return True
            except OSError:
                return False
        wait_until(up, 60, f"{name} to listen on 127.0.0.1:{port}")
        self.base = f"http://127.0.0.1:{port}"

    def tail(self):
        self.log.flush()
        with open(self.log_path) as f:
            return f.read()[-2000:]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


# MARK: - django-oauth-toolkit: a client of the app's own, token expiry through the IdP's database

def dot_shell(code):
    python = os.path.join(ROOT, "Tests", "IdP", ".venv", "bin", "python")
    result = subprocess.run([python, os.path.join(ROOT, "Tests", "IdP", "manage.py"), "shell", "-c", code],
                            capture_output=True, text=True, cwd=os.path.join(ROOT, "Tests", "IdP"), timeout=60)
    if result.returncode != 0:
        raise AssertionError(f"IdP shell failed: {result.stderr[-1000:]}")
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""  # Django's shell may print a banner line first


def dot_register(client_id, secret, bases):
    redirects = " ".join(f"{b}/callback" for b in bases)
    logouts = " ".join(f"{b}/" for b in bases)
    dot_shell(f"""
from oauth2_provider.models import get_application_model
A = get_application_model()
A.objects.update_or_create(client_id={client_id!r}, defaults=dict(
    name="hummingbird-app test", client_secret={secret!r}, hash_client_secret=True, client_type="confidential",
    authorization_grant_type=A.GRANT_AUTHORIZATION_CODE, redirect_uris={redirects!r},
    post_logout_redirect_uris={logouts!r}, algorithm=A.RS256_ALGORITHM, skip_authorization=True, user=None))
""")


def dot_expire_access_tokens(client_id):
    return int(dot_shell(f"""
import datetime
from django.utils import timezone
from oauth2_provider.models import AccessToken
print(AccessToken.objects.filter(application__client_id={client_id!r}).update(expires=timezone.now() - datetime.timedelta(seconds=30)))
"""))


def dot_access_tokens_after(client_id, last_id):
    """How many access tokens the provider issued to the client after token id `last_id`, and the newest id."""
    count, newest = dot_shell(f"""
from django.db.models import Max
from oauth2_provider.models import AccessToken
tokens = AccessToken.objects.filter(application__client_id={client_id!r})
print(tokens.filter(id__gt={int(last_id)}).count(), tokens.aggregate(m=Max("id"))["m"] or 0)
""").split()
    return int(count), int(newest)


def json_of(body):
    try:
        return json.loads(body)
    except ValueError:
        return None


# MARK: - DPoP proofs, signed with the `jose` CLI (Debian package jose; Tests/providers.sh installs it)

def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def dpop_key():
    folder = tempfile.mkdtemp(prefix="hbapp-dpop-")
    key = os.path.join(folder, "key.jwk")
    subprocess.run(["jose", "jwk", "gen", "-i", '{"alg":"ES256"}', "-o", key], check=True)
    public = json.loads(subprocess.run(["jose", "jwk", "pub", "-i", key], capture_output=True, text=True, check=True).stdout)
    return key, {k: public[k] for k in ("kty", "crv", "x", "y")}


def dpop_proof(key, jwk, method, url, access_token=None, nonce=None):
    # Dated one second back: glewlwyd refuses an iat after its (coarse) clock.
    claims = {"jti": secrets.token_urlsafe(16), "htm": method, "htu": url, "iat": int(time.time()) - 1}
    if nonce:
        claims["nonce"] = nonce
    if access_token:
        claims["ath"] = b64url(hashlib.sha256(access_token.encode()).digest())
    payload = os.path.join(os.path.dirname(key), "claims.json")
    with open(payload, "w") as f:
        f.write(json.dumps(claims))
    template = json.dumps({"protected": {"typ": "dpop+jwt", "alg": "ES256", "jwk": jwk}})
    return subprocess.run(["jose", "jws", "sig", "-I", payload, "-k", key, "-s", template, "-c"],
                          capture_output=True, text=True, check=True).stdout.strip()


# MARK: - Parts

def part_cli(binary):
    """The command line both apps share: usage errors exit 2 naming what is wrong (no provider needed); vapor-app
    names each flag of the Hummingbird app it does not serve (--mcp, --ssf-*)."""
    def run(*args):
        result = subprocess.run([binary, *args], capture_output=True, text=True, timeout=60)
        return result.returncode, result.stderr
    code, err = run()
    check(code == 2 and f"usage: {APP} " in err, f"cli: no arguments exit 2 with the usage of {APP} ({code})")
    code, err = run("--issuer", "https://idp.example", "--client-id", "c", "--client-secret", "s", "--base-url", "http://127.0.0.1:1",
                    "--no-such-flag")
    check(code == 2 and "unknown option --no-such-flag" in err, f"cli: an unknown flag exits 2 naming it ({code})")
    code, err = run("--port", "0")
    check(code == 2 and "--port" in err, f"cli: a bad --port exits 2 naming it ({code})")
    code, err = run("--issuer", "https://idp.example", "--client-id", "c", "--client-secret", "s", "--client-key", "k",
                    "--base-url", "http://127.0.0.1:1")
    check(code == 2 and "exactly one of --client-secret" in err, f"cli: two client credentials exit 2 ({code})")
    code, err = run("--issuer", "https://idp.example", "--client-id", "c", "--client-secret", "s", "--base-url", "http://127.0.0.1:1/path")
    check(code == 2 and "--base-url" in err, f"cli: a --base-url with a path exits 2 naming it ({code})")
    if APP == "vapor-app":
        for flag in ("--mcp", "--mcp-require-scope", "--ssf-receiver"):
            code, err = run("--issuer", "https://idp.example", "--client-id", "c", "--client-secret", "s",
                            "--base-url", "http://127.0.0.1:1", flag)
            check(code == 2 and flag in err and "hummingbird-app" in err,
                  f"cli: vapor-app answers {flag} (served by hummingbird-app only) with a usage error naming it ({code})")
    # A start that fails after the command line (the provider cannot be reached) exits 1.
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        dead = unused.getsockname()[1]
    code, err = run("--issuer", f"http://127.0.0.1:{dead}", "--client-id", "c", "--client-secret", "s",
                    "--base-url", "http://127.0.0.1:1", "--port", str(PORT_BASE + 19))
    check(code == 1 and "cannot start" in err, f"cli: an unreachable issuer stops the start with exit 1 ({code})")


def part_browser(binary):
    """A real browser (headless Chromium) through the provider's own login form."""
    issuer = os.environ.get("IDP_ISSUER")
    if not issuer:
        return skip("browser login (django-oauth-toolkit)", "IDP_ISSUER is not set")
    try:
        from selenium import webdriver
        from selenium.webdriver.common.by import By
    except ImportError:
        return skip("browser login", "selenium is not installed (run.sh makes its venv)")
    chromium = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(p)), None)
    driver_path = next((p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if os.path.exists(p)), None)
    if not chromium or not driver_path:
        return skip("browser login", "chromium / chromium-driver are not installed")
    client_id, secret = "hbapp-browser", "hbapp-browser-secret"
    port = PORT_BASE + 1
    base = f"http://127.0.0.1:{port}"
    dot_register(client_id, secret, [base])
    app = App(binary, "browser-app", port, ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret,
                                              "--base-url", base])
    status, _, body = Client().get(base + "/")
    check(status == 200 and body.decode().startswith(f"{APP}: /login"), f"browser: GET / names the app under test, {APP} ({status})")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver_path))
    driver.set_page_load_timeout(30)
    try:
        def page_json():
            try:
                return json.loads(driver.find_element(By.TAG_NAME, "body").text)
            except Exception:
                return None

        driver.get(base + "/login")
        wait_until(lambda: driver.find_elements(By.NAME, "password"), 20, "the provider's login form")
        check(driver.current_url.startswith(issuer.rsplit("/o", 1)[0] + "/accounts/login/"), "browser: /login leads to the provider's login form")
        driver.find_element(By.NAME, "username").send_keys("alice")
        driver.find_element(By.NAME, "password").send_keys("alice-password-1")
        driver.find_element(By.CSS_SELECTOR, "form [type=submit], form button").click()
        wait_until(lambda: driver.current_url == base + "/me", 20, "the redirect to /me")
        claims = wait_until(page_json, 10, "the claims on /me")
        check(claims.get("iss") == issuer and claims.get("sub") and claims.get("aud") in (client_id, [client_id]),
              "browser: /me answers the ID Token's claims (iss, sub, aud)")
        cookies = {c["name"]: c for c in driver.get_cookies()}
        session = cookies.get("hbapp_session", {})
        check(session.get("httpOnly") is True and session.get("sameSite") == "Lax", "browser: the session cookie is HttpOnly, SameSite=Lax")
        check("hbapp_login" not in cookies, "browser: the pending-login cookie is gone after the callback")

        _, last = dot_access_tokens_after(client_id, 0)
        expired = dot_expire_access_tokens(client_id)
        driver.get(base + "/upstream")
        answer = wait_until(page_json, 20, "the /upstream answer")
        check(expired >= 1 and answer.get("status") == 200 and answer.get("body", {}).get("sub") == claims.get("sub"),
              "browser: /upstream after the access token expired answers UserInfo's 200")
        check(dot_access_tokens_after(client_id, last)[0] == 1, "browser: exactly one refresh was made")

        driver.get(base + "/logout")
        def logged_out():
            if driver.current_url.rstrip("/") == base:
                return True
            forms = driver.find_elements(By.CSS_SELECTOR, "form [type=submit][name=allow]")  # the provider asks to confirm
            if forms:
                forms[0].click()
            return False
        try:
            wait_until(logged_out, 20, "the provider's logout to come back to the app")
        except AssertionError:
            raise AssertionError(f"the logout stopped at {driver.current_url}: {driver.page_source[:1500]}")
        check(True, "browser: /logout goes through the provider's end_session_endpoint back to <base-url>/")
        driver.get(base + "/me")
        check((page_json() or {}).get("error") == "not_logged_in", "browser: /me after /logout answers 401")
    finally:
        driver.quit()
        app.stop()


def database_key_file():
    """A fresh --database-key file (64 hex digits, mode 0600) under WORK."""
    os.makedirs(WORK, exist_ok=True)
    key_file = os.path.join(WORK, "database.key")
    with open(os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(secrets.token_hex(32) + "\n")
    return key_file


def part_replicas(binary):
    """Two instances on one PostgreSQL behind one base URL: a login started on one finishes on the other."""
    issuer, pg = os.environ.get("IDP_ISSUER"), os.environ.get("PG_URL")
    if not issuer or not pg:
        return skip("two instances on PostgreSQL", "IDP_ISSUER or PG_URL is not set")
    replicas_sharing(binary, "replicas", "hbapp-replicas", PORT_BASE + 3, PORT_BASE + 4, ["--database", pg], "PostgreSQL")


def part_redis(binary):
    """The same login and session cases with two instances on one Redis (redis://, then rediss:// with an ACL user
    and --database-ca), then on one Valkey (VALKEY_URL), and a DPoP proof used at one instance refused at the other
    (glewlwyd's DPoP-bound token)."""
    issuer, redis_url = os.environ.get("IDP_ISSUER"), os.environ.get("REDIS_URL")
    if not issuer or not redis_url:
        return skip("two instances on Redis", "IDP_ISSUER or REDIS_URL is not set")
    replicas_sharing(binary, "redis replicas", "hbapp-redis", PORT_BASE + 18, PORT_BASE + 19, ["--database", redis_url], "Redis")
    tls_url, tls_ca = os.environ.get("REDIS_TLS_URL"), os.environ.get("REDIS_TLS_CA")
    if not tls_url or not tls_ca:
        skip("two instances on Redis over TLS", "REDIS_TLS_URL or REDIS_TLS_CA is not set")
    else:
        replicas_sharing(binary, "rediss replicas", "hbapp-rediss", PORT_BASE + 20, PORT_BASE + 21,
                         ["--database", tls_url, "--database-ca", tls_ca], "Redis over TLS")
        refused = subprocess.run([binary, "--issuer", issuer, "--client-id", "x", "--client-secret", "y", "--base-url",
                                  f"http://127.0.0.1:{PORT_BASE + 20}", "--port", str(PORT_BASE + 20), "--database", tls_url],
                                 capture_output=True, text=True, timeout=60)
        password = urllib.parse.urlsplit(tls_url).password or "-"
        check(refused.returncode == 1 and "cannot start" in refused.stderr and password not in refused.stderr,
              "rediss replicas: without --database-ca the test server's certificate is refused (exit 1), the password not shown")
    for extra, what in ((["--database-ca", tls_ca or "/dev/null"], "--database-ca without a --database"),
                        (["--database", redis_url, "--database-ca", tls_ca or "/dev/null"], "--database-ca with a redis:// (not rediss://) URL")):
        refused = subprocess.run([binary, "--issuer", issuer, "--client-id", "x", "--client-secret", "y", "--base-url",
                                  "http://127.0.0.1:1"] + extra, capture_output=True, text=True, timeout=60)
        check(refused.returncode == 2 and "--database-ca" in refused.stderr, f"redis: {what} is a usage error")
    valkey_url = os.environ.get("VALKEY_URL")
    if not valkey_url:
        skip("two instances on Valkey", "VALKEY_URL is not set (Tests/providers.sh starts Valkey through Tests/Redis/start.sh)")
    else:
        replicas_sharing(binary, "valkey replicas", "hbapp-valkey", PORT_BASE + 24, PORT_BASE + 25, ["--database", valkey_url], "Valkey")
    redis_dpop_replay(binary, redis_url)


def redis_dpop_replay(binary, redis_url):
    """One DPoP proof, presented to two instances sharing Redis (same base URL, so the same htu): the second refuses it."""
    issuer, gw_base, resource = (os.environ.get(k) for k in ("GLEWLWYD_ISSUER", "GLEWLWYD_BASE", "GLEWLWYD_RESOURCE"))
    if not issuer or not gw_base or not resource:
        return skip("redis DPoP replay across instances", "GLEWLWYD_ISSUER / GLEWLWYD_BASE / GLEWLWYD_RESOURCE are not set")
    if subprocess.run(["sh", "-c", "command -v jose"], capture_output=True).returncode != 0:
        return skip("redis DPoP replay across instances", "the jose CLI is not installed")
    gw = load_module("glewlwyd_configure", os.path.join(ROOT, "Tests", "Glewlwyd", "configure.py"))
    port_a, port_b = PORT_BASE + 22, PORT_BASE + 23
    base = f"http://127.0.0.1:{port_b}"
    client_id, secret = "hbapp-redis-" + secrets.token_hex(4), secrets.token_urlsafe(24)
    admin = gw.Admin(gw_base)
    admin.call("POST", "/api/auth/", {"username": "admin", "password": "password"})
    admin.call("POST", "/api/client/", {
        "client_id": client_id, "name": client_id, "enabled": True, "confidential": True, "password": secret,
        "redirect_uri": [base + "/callback"], "authorization_type": ["client_credentials"], "scope": ["api.read"],
        "token_endpoint_auth_method": ["client_secret_basic"], "resource": [resource]})
    common = ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret, "--base-url", base, "--scope", "openid",
              "--audience", resource, "--require-scope", "api.read", "--database", redis_url]
    a = App(binary, "redis-dpop-a", port_a, common)
    b = App(binary, "redis-dpop-b", port_b, common)
    try:
        http = Client()
        basic = "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()
        key, jwk = dpop_key()
        form = urllib.parse.urlencode({"grant_type": "client_credentials", "scope": "api.read", "resource": resource}).encode()
        nonce = None
        for _ in range(2):  # glewlwyd may first ask for its nonce
            status, headers, body = http.request("POST", issuer + "/token", form, {
                "Authorization": basic, "Content-Type": "application/x-www-form-urlencoded",
                "DPoP": dpop_proof(key, jwk, "POST", issuer + "/token", nonce=nonce)})
            if status == 200 or not headers.get("DPoP-Nonce"):
                break
            nonce = headers.get("DPoP-Nonce")
        bound = (json_of(body) or {}).get("access_token", "")
        check(status == 200 and bound, "redis DPoP: glewlwyd issued a DPoP-bound access token")
        target = base + "/api/resource"  # the htu both instances expect (their shared base URL)
        proof = dpop_proof(key, jwk, "GET", target, access_token=bound)
        status, _, body = http.get(a.base + "/api/resource", headers={"Authorization": "DPoP " + bound, "DPoP": proof})
        check(status == 200 and (json_of(body) or {}).get("client_id") == client_id, "redis DPoP: instance A accepts the token with its proof")
        status, headers, _ = http.get(b.base + "/api/resource", headers={"Authorization": "DPoP " + bound, "DPoP": proof})
        check(status == 401 and 'DPoP error="invalid_dpop_proof"' in " ".join(headers.get_all("WWW-Authenticate") or []),
              "redis DPoP: the same proof at instance B (sharing Redis) answers invalid_dpop_proof")
        status, _, _ = http.get(b.base + "/api/resource", headers={
            "Authorization": "DPoP " + bound, "DPoP": dpop_proof(key, jwk, "GET", target, access_token=bound)})
        check(status == 200, "redis DPoP: a fresh proof at instance B is accepted")
        shared = subprocess.run(["redis-cli", "-u", redis_url, "--scan", "--pattern", "hbapp:jwks:*"], capture_output=True, text=True)
        check(shared.returncode == 0 and shared.stdout.strip(), "redis DPoP: the provider's JWK Set is shared in Redis (hbapp:jwks:*)")
    finally:
        a.stop()
        b.stop()


def replicas_sharing(binary, label, client_id, port_a, port_b, database, store):
    """Two instances sharing `database` behind one base URL (instance B's port): a login started on one finishes
    on the other; sessions, pending logins and tokens are the store's."""
    issuer = os.environ["IDP_ISSUER"]
    idp_login = load_module("idp_login", os.path.join(ROOT, "Tests", "IdP", "login.py"))
    secret = client_id + "-secret"
    base = f"http://127.0.0.1:{port_b}"  # the shared external origin (the "load balancer" is instance B's port)
    dot_register(client_id, secret, [base])
    key_file = database_key_file()
    common = ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret, "--base-url", base] + database + [
              "--database-key", key_file]
    name = label.replace(" ", "-")
    a = App(binary, f"{name}-a", port_a, common)
    b = App(binary, f"{name}-b", port_b, common)
    try:
        browser = Client()
        status, headers, _ = browser.get(a.base + "/login")
        location = headers.get("Location", "")
        login_cookie = [c for c in set_cookies(headers) if c.startswith("hbapp_login=")]
        check(status == 302 and location.startswith(issuer) and login_cookie, f"{label}: /login on A redirects to the provider")
        check(login_cookie and "HttpOnly" in login_cookie[0] and "SameSite=Lax" in login_cookie[0] and "Secure" not in login_cookie[0],
              f"{label}: the pending-login cookie is HttpOnly, SameSite=Lax, not Secure on loopback http")
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        check(query.get("redirect_uri") == base + "/callback" and query.get("code_challenge_method") == "S256"
              and query.get("state") and query.get("nonce"), f"{label}: state, nonce, PKCE S256, redirect_uri = <base-url>/callback")
        redirect = idp_login.login(location, "alice", "alice-password-1")
        callback = redirect.replace(base, b.base, 1)
        login_handle = browser.cookie("hbapp_login")
        status, headers, _ = browser.get(callback)
        check(status == 302 and headers.get("Location") == base + "/me" and browser.cookie("hbapp_session"),
              f"{label}: the callback on B finishes the login started on A")
        status, _, body = browser.get(a.base + "/me")
        check(status == 200 and (json_of(body) or {}).get("iss") == issuer, f"{label}: A knows the session B started")
        status, _, body = browser.get(a.base + "/upstream")
        check(status == 200 and (json_of(body) or {}).get("status") == 200,
              f"{label}: /upstream on A calls UserInfo with the tokens B stored in {store}")

        status, headers, _ = Client().get(callback, headers={"Cookie": f"hbapp_login={login_handle}"})
        check(status == 400 and not any(c.startswith("hbapp_session=") and "Max-Age=0" not in c for c in set_cookies(headers)),
              f"{label}: a replayed callback answers 400 and sets no session cookie")

        other = Client()
        status, headers, _ = other.get(a.base + "/login")
        location = headers.get("Location", "")
        redirect = idp_login.login(location, "alice", "alice-password-1")
        tampered = redirect.replace("state=", "state=x", 1).replace(base, a.base, 1)
        status, headers, _ = other.get(tampered)
        check(status == 400 and not other.cookie("hbapp_session"), f"{label}: a state mismatch answers 400 and sets no session cookie")
        status, _, _ = other.get(redirect.replace(base, a.base, 1))
        check(status == 400 and not other.cookie("hbapp_session"), f"{label}: the pending login is consumed even by a refused callback")

        status, headers, _ = browser.get(a.base + "/login?iss=" + urllib.parse.quote("https://evil.example"))
        check(status == 400 and "Location" not in headers, f"{label}: /login?iss= of another issuer answers 400 without a redirect")
        status, headers, _ = browser.get(a.base + "/login?iss=" + urllib.parse.quote(issuer))
        check(status == 302 and headers.get("Location", "").startswith(issuer), f"{label}: /login?iss= of the configured issuer starts a login")

        status, headers, _ = browser.get(b.base + "/logout")
        target = headers.get("Location", "")
        params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(target).query))
        check(status == 302 and params.get("id_token_hint") and params.get("client_id") == client_id
              and params.get("post_logout_redirect_uri") == base + "/", f"{label}: /logout on B redirects to end_session with the hint")
        status, _, _ = browser.get(a.base + "/me")
        check(status == 401, f"{label}: /logout on B ended the session on A")
        status, _, _ = Client().get(a.base + "/upstream")
        check(status == 401, f"{label}: /upstream without a session answers 401")
    finally:
        a.stop()
        b.stop()


def part_glewlwyd(binary):
    """glewlwyd: the protected resource (RFC 9068 tokens, challenges, introspection) and back-channel logout."""
    issuer, gw_base, resource = (os.environ.get(k) for k in ("GLEWLWYD_ISSUER", "GLEWLWYD_BASE", "GLEWLWYD_RESOURCE"))
    if not issuer or not gw_base or not resource:
        return skip("glewlwyd", "GLEWLWYD_ISSUER / GLEWLWYD_BASE / GLEWLWYD_RESOURCE are not set")
    gw = load_module("glewlwyd_configure", os.path.join(ROOT, "Tests", "Glewlwyd", "configure.py"))
    gw_login = load_module("glewlwyd_login", os.path.join(ROOT, "Tests", "Glewlwyd", "login.py"))
    port = PORT_BASE + 2
    base = f"http://127.0.0.1:{port}"
    hybrid_port = PORT_BASE + 6
    hybrid_base = f"http://127.0.0.1:{hybrid_port}"
    client_id, secret = "hbapp-" + secrets.token_hex(4), secrets.token_urlsafe(24)
    admin = gw.Admin(gw_base)
    admin.call("POST", "/api/auth/", {"username": "admin", "password": "password"})
    admin.call("POST", "/api/client/", {
        "client_id": client_id, "name": client_id, "enabled": True, "confidential": True, "password": secret,
        "redirect_uri": [base + "/callback", hybrid_base + "/callback"],
        "authorization_type": ["code", "id_token", "client_credentials", "refresh_token"],
        "scope": ["openid", "api.read", "api.write"], "token_endpoint_auth_method": ["client_secret_basic"],
        "resource": [resource], "backchannel_logout_uri": base + "/backchannel-logout"})
    app = App(binary, "glewlwyd-app", port, ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret,
                                              "--base-url", base, "--scope", "openid", "--audience", resource,
                                              "--require-scope", "api.read", "--accept-draft-logout-tokens"])
    introspecting = App(binary, "glewlwyd-introspect", PORT_BASE + 5,
                        ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret, "--base-url", base,
                         "--audience", resource, "--require-scope", "api.read", "--introspect"])
    hybrid = App(binary, "glewlwyd-form-post", hybrid_port,
                 ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret, "--base-url", hybrid_base,
                  "--scope", "openid", "--response-mode", "form_post", "--response-type", "code id_token"])
    try:
        http = Client()
        basic = "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()

        def service_token(scope, with_resource=True):
            form = {"grant_type": "client_credentials", "scope": scope}
            if with_resource:
                form["resource"] = resource
            status, _, body = http.request("POST", issuer + "/token", urllib.parse.urlencode(form).encode(),
                                           {"Authorization": basic, "Content-Type": "application/x-www-form-urlencoded"})
            if status != 200:
                raise AssertionError(f"client credentials answered {status}: {body[:200]!r}")
            return json.loads(body)["access_token"]

        token = service_token("api.read")
        for name, server in (("JWT", app), ("introspection", introspecting)):
            status, headers, body = http.get(server.base + "/api/resource", headers={"Authorization": "Bearer " + token})
            answer = json_of(body) or {}
            check(status == 200 and answer.get("client_id") == client_id and "api.read" in answer.get("scope", [])
                  and "sub" in answer, f"glewlwyd: /api/resource accepts an RFC 9068 access token ({name})")
        status, headers, _ = http.get(app.base + "/api/resource")
        challenges = headers.get_all("WWW-Authenticate") or []
        check(status == 401 and len(challenges) == 2 and challenges[0].startswith("Bearer") and "error=" not in challenges[0]
              and challenges[1].startswith("DPoP algs="), "glewlwyd: no token answers 401 with bare Bearer and DPoP challenges")
        status, headers, _ = http.get(app.base + "/api/resource", headers={"Authorization": "Bearer not-a-token"})
        check(status == 401 and 'error="invalid_token"' in headers.get("WWW-Authenticate", ""), "glewlwyd: a bad token answers invalid_token")
        # RFC 9728: every challenge names the metadata document; from the resource URL alone a client reaches the issuer.
        wanted = f'resource_metadata="{app.base}/.well-known/oauth-protected-resource"'
        for server in (app, introspecting):
            status, headers, _ = http.get(server.base + "/api/resource", headers={"Authorization": "Bearer not-a-token"})
            challenges = headers.get_all("WWW-Authenticate") or []
            check(status == 401 and challenges and all(wanted in c for c in challenges),
                  f"glewlwyd: every challenge carries resource_metadata (RFC 9728), {server.name}")
        found = re.search(r'resource_metadata="([^"]+)"', " ".join(challenges))
        status, headers, body = http.get(found.group(1)) if found else (0, None, "")
        document = json_of(body) or {}
        check(status == 200 and document.get("resource") == app.base and document.get("authorization_servers") == [issuer]
              and document.get("scopes_supported") == ["api.read"] and document.get("bearer_methods_supported") == ["header"]
              and bool(document.get("dpop_signing_alg_values_supported")),
              "glewlwyd: the app serves its RFC 9728 metadata at /.well-known/oauth-protected-resource")
        servers = document.get("authorization_servers") or [""]
        status, _, body = http.get(servers[0] + "/.well-known/openid-configuration")
        check(status == 200 and (json_of(body) or {}).get("issuer") == issuer,
              "glewlwyd: from the resource URL alone (401, resource_metadata, metadata) a client reaches the issuer")
        status, headers, _ = http.get(app.base + "/api/resource", headers={"Authorization": "Bearer " + service_token("api.write")})
        check(status == 403 and 'error="insufficient_scope"' in headers.get("WWW-Authenticate", "")
              and 'scope="api.read"' in headers.get("WWW-Authenticate", ""), "glewlwyd: a token without the scope answers insufficient_scope")
        status, headers, _ = http.get(app.base + "/api/resource", headers={"Authorization": "Bearer " + service_token("api.read", False)})
        check(status == 401 and 'error="invalid_token"' in headers.get("WWW-Authenticate", ""),
              "glewlwyd: a token for another audience answers invalid_token")
        status2, headers2, _ = http.request("GET", app.base + "/api/resource", headers={"Authorization": "Basic abc"})
        check(status2 == 401 and headers2.get("WWW-Authenticate", "").startswith("Bearer"), "glewlwyd: another scheme gets the Bearer challenge")

        # A DPoP-bound access token (RFC 9449) from glewlwyd, then presented to the app with its proof.
        if subprocess.run(["sh", "-c", "command -v jose"], capture_output=True).returncode != 0:
            skip("glewlwyd DPoP", "the jose CLI is not installed")
        else:
            key, jwk = dpop_key()
            form = urllib.parse.urlencode({"grant_type": "client_credentials", "scope": "api.read", "resource": resource}).encode()
            nonce = None
            for _ in range(2):  # glewlwyd may first ask for its nonce (use_dpop_nonce + DPoP-Nonce)
                status, headers, body = http.request("POST", issuer + "/token", form, {
                    "Authorization": basic, "Content-Type": "application/x-www-form-urlencoded",
                    "DPoP": dpop_proof(key, jwk, "POST", issuer + "/token", nonce=nonce)})
                if status == 200 or not headers.get("DPoP-Nonce"):
                    break
                nonce = headers.get("DPoP-Nonce")
            tokens = json_of(body) or {}
            check(status == 200 and tokens.get("token_type", "").lower() == "dpop", "glewlwyd: a DPoP-bound access token is issued")
            bound = tokens.get("access_token", "")
            target = app.base + "/api/resource"
            status, _, body = http.get(target, headers={"Authorization": "DPoP " + bound,
                                                        "DPoP": dpop_proof(key, jwk, "GET", target, access_token=bound)})
            check(status == 200 and (json_of(body) or {}).get("client_id") == client_id,
                  "glewlwyd: /api/resource accepts the DPoP-bound token with its proof (htu = <base-url>/api/resource)")
            replayed = dpop_proof(key, jwk, "GET", target, access_token=bound)
            http.get(target, headers={"Authorization": "DPoP " + bound, "DPoP": replayed})
            status, headers, _ = http.get(target, headers={"Authorization": "DPoP " + bound, "DPoP": replayed})
            check(status == 401 and 'DPoP error="invalid_dpop_proof"' in " ".join(headers.get_all("WWW-Authenticate") or []),
                  "glewlwyd: a replayed DPoP proof answers invalid_dpop_proof")
            status, headers, _ = http.get(target, headers={"Authorization": "DPoP " + bound,
                                                           "DPoP": dpop_proof(key, jwk, "GET", app.base + "/other", access_token=bound)})
            check(status == 401 and 'DPoP error="invalid_dpop_proof"' in " ".join(headers.get_all("WWW-Authenticate") or []),
                  "glewlwyd: a proof for another htu answers invalid_dpop_proof")
            status, headers, _ = http.get(target, headers={"Authorization": "Bearer " + bound})
            challenges = headers.get_all("WWW-Authenticate") or []
            check(status == 401 and any('Bearer error="invalid_token"' in c for c in challenges)
                  and any(c.startswith("DPoP") for c in challenges), "glewlwyd: the DPoP-bound token as Bearer answers invalid_token")
            status, headers, _ = http.get(target, headers={"Authorization": "DPoP " + bound})
            check(status == 401 and 'DPoP error="invalid_dpop_proof"' in " ".join(headers.get_all("WWW-Authenticate") or []),
                  "glewlwyd: the DPoP scheme without a proof answers invalid_dpop_proof")
            # --introspect: glewlwyd's answer carries cnf.jkt, which the library's one call enforces (htu: the same
            # <base-url>/api/resource, the introspecting instance shares the base URL).
            introspected = introspecting.base + "/api/resource"
            status, headers, _ = http.get(introspected, headers={"Authorization": "Bearer " + bound})
            challenges = headers.get_all("WWW-Authenticate") or []
            check(status == 401 and any('Bearer error="invalid_token"' in c for c in challenges),
                  f"glewlwyd: --introspect refuses the DPoP-bound token as Bearer (cnf.jkt in the answer) ({status})")
            status, _, body = http.get(introspected, headers={"Authorization": "DPoP " + bound,
                                                              "DPoP": dpop_proof(key, jwk, "GET", target, access_token=bound)})
            check(status == 200 and "api.read" in (json_of(body) or {}).get("scope", []),
                  f"glewlwyd: --introspect accepts the DPoP-bound token with a proof of its key ({status})")
            other_key, other_jwk = dpop_key()
            status, headers, _ = http.get(introspected, headers={"Authorization": "DPoP " + bound,
                                                                 "DPoP": dpop_proof(other_key, other_jwk, "GET", target, access_token=bound)})
            check(status == 401 and 'DPoP error="invalid_dpop_proof"' in " ".join(headers.get_all("WWW-Authenticate") or []),
                  f"glewlwyd: --introspect refuses the DPoP-bound token with another key's proof ({status})")

        # Back-channel logout: a login, then glewlwyd ends alice's session and POSTs a logout token to the app.
        user = Client()
        status, headers, _ = user.get(app.base + "/login")
        location = headers.get("Location", "")
        provider = gw_login.Browser(gw_base, 15)
        redirect = gw_login.login(location, "alice", "password", gw_base, "openid", 15, browser=provider)
        status, headers, _ = user.get(redirect)
        check(status == 302 and user.cookie("hbapp_session"), "glewlwyd: the login finishes (code flow, RFC 9207 iss)")
        status, _, body = user.get(app.base + "/me")
        claims = json_of(body) or {}
        check(status == 200 and claims.get("sid"), "glewlwyd: /me answers the claims, with sid")
        status, _, body = user.get(app.base + "/upstream")
        check(status == 200 and (json_of(body) or {}).get("status") == 200, "glewlwyd: /upstream calls UserInfo as the user")
        status, _, _ = Client().request("POST", app.base + "/backchannel-logout", b"logout_token=not.a.token",
                                        {"Content-Type": "application/x-www-form-urlencoded"})
        check(status == 400, "glewlwyd: a bad logout token answers 400")
        status, _, text = provider.request("DELETE", gw_base + "/api/oidc/session/" + urllib.parse.quote(claims["sid"], safe="") + "/")
        check(status == 200, "glewlwyd: the provider ends alice's session")
        wait_until(lambda: user.get(app.base + "/me")[0] == 401, 20, "the back-channel logout to end the app's session")
        check(True, "glewlwyd: the back-channel logout token ended the app's session")

        # Front-channel logout (Front-Channel Logout 1.0 §2): glewlwyd's sid ends the session, another iss or sid nothing.
        user = Client()
        status, headers, _ = user.get(app.base + "/login")
        redirect = gw_login.login(headers.get("Location", ""), "alice", "password", gw_base, "openid", 15, browser=gw_login.Browser(gw_base, 15))
        status, headers, _ = user.get(redirect)
        status, _, body = user.get(app.base + "/me")
        sid = (json_of(body) or {}).get("sid")
        check(status == 200 and sid, "front-channel: a login whose ID Token carries glewlwyd's sid")
        def front_channel(iss, session_id):
            query = urllib.parse.urlencode({"iss": iss, "sid": session_id})
            return Client().get(app.base + "/frontchannel-logout?" + query)
        status, headers, _ = front_channel("https://other.example.com", sid)
        check(status == 400 and headers.get("Cache-Control") == "no-cache, no-store" and user.get(app.base + "/me")[0] == 200,
              "front-channel: another iss ends nothing (400, Cache-Control: no-cache, no-store)")
        status, headers, _ = front_channel(issuer, "another_sid")
        check(status == 200 and user.get(app.base + "/me")[0] == 200, "front-channel: an unknown sid ends nothing")
        status, headers, _ = front_channel(issuer, sid)
        check(status == 200 and headers.get("Cache-Control") == "no-cache, no-store",
              "front-channel: the issuer's sid answers 200 with Cache-Control: no-cache, no-store")
        check(user.get(app.base + "/me")[0] == 401 and user.get(app.base + "/upstream")[0] == 401,
              "front-channel: the session with that sid is ended (its cookie no longer authenticates)")

        # form_post + hybrid ("code id_token"): the provider answers with an auto-submitting form.
        user = Client()
        status, headers, _ = user.get(hybrid.base + "/login")
        location = headers.get("Location", "")
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        check(query.get("response_mode") == "form_post" and query.get("response_type") == "code id_token",
              "form_post: the authorization request asks for code id_token through form_post")
        provider = gw_login.Browser(gw_base, 15)
        provider.request("GET", location)
        provider.request("POST", gw_base + "/api/auth/", {"username": "alice", "password": "password"})
        provider.request("PUT", gw_base + "/api/auth/grant/" + urllib.parse.quote(client_id, safe="") + "/", {"scope": "openid"})
        status, _, page = provider.request("GET", location + "&g_continue")
        fields = dict(re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', page))
        check(status == 200 and "code" in fields and "id_token" in fields, "form_post: the provider answers a form with code and id_token")
        form = urllib.parse.urlencode({k: html.unescape(v) for k, v in fields.items()}).encode()
        status, headers, _ = user.request("GET", hybrid.base + "/callback?" + form.decode())
        check(status == 400 and not user.cookie("hbapp_session"), "form_post: the answer in a query instead of the POST is refused")
        user2 = Client()
        status, headers, _ = user2.get(hybrid.base + "/login")
        location = headers.get("Location", "")
        provider.request("GET", location)
        status, _, page = provider.request("GET", location + "&g_continue")
        fields = dict(re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', page))
        # glewlwyd 2.7.5 writes iss (and session_state) percent-encoded into the form's values, so a
        # browser would post "http%3A%2F%2F..." and the app refuses it as response_issuer_mismatch
        # (checked above with the query form). Post what a conforming provider's form would carry.
        fields = {k: urllib.parse.unquote(html.unescape(v)) if k in ("iss", "session_state") else html.unescape(v)
                  for k, v in fields.items()}
        form = urllib.parse.urlencode(fields).encode()
        status, headers, _ = user2.request("POST", hybrid.base + "/callback", form, {"Content-Type": "application/x-www-form-urlencoded"})
        check(status == 302 and user2.cookie("hbapp_session"), "form_post: the POSTed hybrid answer finishes the login")
        status, _, body = user2.get(hybrid.base + "/me")
        check(status == 200 and (json_of(body) or {}).get("iss") == issuer, "form_post: /me answers the claims")

        # private_key_jwt (--client-key): a client of its own with the ES256 key's public half in glewlwyd.
        key_file = os.environ.get("GLEWLWYD_PKJWT_KEY_FILE")
        if not key_file or not os.path.exists(key_file):
            skip("glewlwyd private_key_jwt", "GLEWLWYD_PKJWT_KEY_FILE is not set")
        else:
            public_pem = subprocess.run(["openssl", "pkey", "-in", key_file, "-pubout"], capture_output=True, text=True, check=True).stdout
            pk_id = "hbapp-pk-" + secrets.token_hex(4)
            pk_base = f"http://127.0.0.1:{PORT_BASE + 8}"
            admin.call("POST", "/api/client/", {
                "client_id": pk_id, "name": pk_id, "enabled": True, "confidential": True, "redirect_uri": [pk_base + "/callback"],
                "authorization_type": ["code", "refresh_token"], "scope": ["openid", "api.read"],
                "token_endpoint_auth_method": ["private_key_jwt"], "token_endpoint_signing_alg": "ES256", "pubkey": public_pem})
            pk = App(binary, "glewlwyd-private-key-jwt", PORT_BASE + 8,
                     ["--issuer", issuer, "--client-id", pk_id, "--client-key", key_file, "--client-assertion-audience", "endpoint",
                      "--base-url", pk_base, "--scope", "openid"])
            try:
                user = Client()
                status, headers, _ = user.get(pk.base + "/login")
                redirect = gw_login.login(headers.get("Location", ""), "alice", "password", gw_base, "openid", 15)
                status, _, _ = user.get(redirect)
                check(status == 302 and user.cookie("hbapp_session"), "glewlwyd: a login with private_key_jwt (--client-key) finishes")
            finally:
                pk.stop()

        # A refused token request (a wrong client secret): the callback answers 400, no session cookie.
        wrong = App(binary, "glewlwyd-wrong-secret", PORT_BASE + 9,
                    ["--issuer", issuer, "--client-id", client_id, "--client-secret", "not-the-secret", "--base-url", base,
                     "--scope", "openid"])
        try:
            user = Client()
            status, headers, _ = user.get(wrong.base + "/login")
            redirect = gw_login.login(headers.get("Location", ""), "alice", "password", gw_base, "openid", 15)
            status, headers, _ = user.get(redirect.replace(base, wrong.base, 1))
            check(status == 400 and not user.cookie("hbapp_session")
                  and not any(c.startswith("hbapp_session=") for c in set_cookies(headers)),
                  "glewlwyd: a callback whose code the token endpoint refuses answers 400 and sets no session cookie")
        finally:
            wrong.stop()

        # Behind https (the external origin), the cookies are Secure; with form_post the login cookie
        # is SameSite=None so that it comes back on the provider's cross-site POST.
        tls = App(binary, "glewlwyd-https-origin", PORT_BASE + 7,
                  ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret, "--base-url", "https://app.example.test",
                   "--scope", "openid", "--response-mode", "form_post", "--response-type", "code id_token"])
        try:
            status, headers, _ = Client().get(tls.base + "/login")
            cookie = next((c for c in set_cookies(headers) if c.startswith("hbapp_login=")), "")
            query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(headers.get("Location", "")).query))
            check(status == 302 and "Secure" in cookie and "SameSite=None" in cookie and "HttpOnly" in cookie
                  and query.get("redirect_uri") == "https://app.example.test/callback",
                  "cookies: behind https with form_post the login cookie is HttpOnly; SameSite=None; Secure")
        finally:
            tls.stop()
    finally:
        app.stop()
        introspecting.stop()
        hybrid.stop()

def part_mtls(binary):
    """glewlwyd over TLS (RFC 8705): the app as a tls_client_auth client (AsyncHTTPClient presenting a client
    certificate), its /api/resource served over https asking for client certificates: a certificate-bound token
    is accepted with the certificate it is bound to, refused without it and with another."""
    names = ("ISSUER", "RESOURCE", "CA_FILE", "MTLS_CLIENT_ID", "MTLS_CLIENT_CERT", "MTLS_CLIENT_KEY", "MTLS_OTHER_CERT", "MTLS_OTHER_KEY")
    env = {name: os.environ.get("GLEWLWYD_TLS_" + name) for name in names}
    if not all(env.values()):
        return skip("mtls", "GLEWLWYD_TLS_* are not set (Tests/Glewlwyd/start.sh with GLEWLWYD_TLS=1)")
    tls_dir = os.path.dirname(env["CA_FILE"])
    port = PORT_BASE + 7
    base = f"https://127.0.0.1:{port}"
    app = App(binary, "mtls-app", port, [
        "--issuer", env["ISSUER"], "--client-id", env["MTLS_CLIENT_ID"], "--tls-client-auth",
        "--tls-client-cert", env["MTLS_CLIENT_CERT"], "--tls-client-key", env["MTLS_CLIENT_KEY"], "--tls-ca-file", env["CA_FILE"],
        "--base-url", base, "--audience", env["RESOURCE"], "--require-scope", "api.read",
        "--tls-cert", os.path.join(tls_dir, "server.pem"), "--tls-key", os.path.join(tls_dir, "server.key"),
        "--tls-client-ca", env["CA_FILE"]])
    # The same with --introspect: the app introspects at mtls_endpoint_aliases.introspection_endpoint with
    # tls_client_auth, so an active answer shows that AsyncHTTPClient presented the client certificate.
    introspecting = App(binary, "mtls-app-introspect", port + 1, [
        "--issuer", env["ISSUER"], "--client-id", env["MTLS_CLIENT_ID"], "--tls-client-auth",
        "--tls-client-cert", env["MTLS_CLIENT_CERT"], "--tls-client-key", env["MTLS_CLIENT_KEY"], "--tls-ca-file", env["CA_FILE"],
        "--base-url", f"https://127.0.0.1:{port + 1}", "--audience", env["RESOURCE"], "--require-scope", "api.read", "--introspect",
        "--tls-cert", os.path.join(tls_dir, "server.pem"), "--tls-key", os.path.join(tls_dir, "server.key"),
        "--tls-client-ca", env["CA_FILE"]])
    try:
        def context(certificate=None, key=None):
            ctx = ssl.create_default_context(cafile=env["CA_FILE"])
            if certificate:
                ctx.load_cert_chain(certificate, key)
            return ctx

        def call(method, url, ctx, body=None, headers=None):
            req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
            try:
                with urllib.request.urlopen(req, context=ctx, timeout=15) as r:
                    return r.status, r.headers, r.read()
            except urllib.error.HTTPError as e:
                return e.code, e.headers, e.read()

        mine = context(env["MTLS_CLIENT_CERT"], env["MTLS_CLIENT_KEY"])
        form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": env["MTLS_CLIENT_ID"],
                                       "scope": "api.read", "resource": env["RESOURCE"]}).encode()
        status, _, body = call("POST", env["ISSUER"] + "/mtls/token", mine, form, {"Content-Type": "application/x-www-form-urlencoded"})
        check(status == 200, f"mtls: tls_client_auth at /mtls/token answered {status}")
        token = json_of(body)["access_token"]
        claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
        check("x5t#S256" in claims.get("cnf", {}), "mtls: the access token is certificate-bound (cnf.x5t#S256)")
        bearer = {"Authorization": "Bearer " + token}
        status, _, body = call("GET", base + "/api/resource", mine, headers=bearer)
        check(status == 200 and json_of(body).get("client_id") == env["MTLS_CLIENT_ID"],
              f"mtls: /api/resource accepts the bound token with its certificate ({status})")
        status, headers, _ = call("GET", base + "/api/resource", context(), headers=bearer)
        check(status == 401 and "invalid_token" in (headers.get("WWW-Authenticate") or ""),
              f"mtls: /api/resource refuses the bound token without a client certificate ({status})")
        status, _, _ = call("GET", base + "/api/resource", context(env["MTLS_OTHER_CERT"], env["MTLS_OTHER_KEY"]), headers=bearer)
        check(status == 401, f"mtls: /api/resource refuses the bound token with another client certificate ({status})")
        introspected = f"https://127.0.0.1:{port + 1}/api/resource"
        status, _, body = call("GET", introspected, mine, headers=bearer)
        check(status == 200 and json_of(body).get("scope") == ["api.read"],  # glewlwyd's answer has no client_id
              f"mtls: --introspect (tls_client_auth at /mtls/introspect) accepts the bound token with its certificate ({status})")
        status, _, _ = call("GET", introspected, context(), headers=bearer)
        check(status == 401, f"mtls: --introspect refuses the bound token without a client certificate ({status})")
        status, _, _ = call("GET", introspected, context(env["MTLS_OTHER_CERT"], env["MTLS_OTHER_KEY"]), headers=bearer)
        check(status == 401, f"mtls: --introspect refuses the bound token with another client certificate ({status})")
    finally:
        app.stop()
        introspecting.stop()


def part_request_object(binary):
    """glewlwyd fetches the login request from the app (OpenID Connect Core §6.2, RFC 9101): with
    --request-object by-reference the authorization URL carries only client_id, request_uri, response_type and
    scope; the app serves the signed request object at <base-url>/request-objects/<id> until it expires."""
    issuer, gw_base = os.environ.get("GLEWLWYD_ISSUER"), os.environ.get("GLEWLWYD_BASE")
    if not issuer or not gw_base:
        return skip("request-object", "GLEWLWYD_ISSUER / GLEWLWYD_BASE are not set")
    gw = load_module("glewlwyd_configure", os.path.join(ROOT, "Tests", "Glewlwyd", "configure.py"))
    gw_login = load_module("glewlwyd_login", os.path.join(ROOT, "Tests", "Glewlwyd", "login.py"))
    # The client's request-object key (ES256): the private half for the app, the public half in glewlwyd's `pubkey`.
    folder = tempfile.mkdtemp(prefix="hbapp-jar-")
    key_file = os.path.join(folder, "request-object.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key_file],
                   check=True, capture_output=True)
    public_pem = subprocess.run(["openssl", "pkey", "-in", key_file, "-pubout"], capture_output=True, text=True, check=True).stdout
    ports = {"reference": PORT_BASE + 10, "value": PORT_BASE + 11, "expiry": PORT_BASE + 12, "shared": PORT_BASE + 13,
             "encrypt": PORT_BASE + 15, "unsigned": PORT_BASE + 16, "flood": PORT_BASE + 17}
    bases = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    client_id, secret = "hbapp-jar-" + secrets.token_hex(4), secrets.token_urlsafe(24)
    admin = gw.Admin(gw_base)
    admin.call("POST", "/api/auth/", {"username": "admin", "password": "password"})
    admin.call("POST", "/api/client/", {
        "client_id": client_id, "name": client_id, "enabled": True, "confidential": True, "password": secret,
        "redirect_uri": [b + "/callback" for b in bases.values()], "authorization_type": ["code", "refresh_token"],
        "scope": ["openid"], "token_endpoint_auth_method": ["client_secret_basic"],
        "pubkey": public_pem, "request_object_signing_alg": "ES256"})
    common = ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret, "--scope", "openid",
              "--request-object-key", key_file]

    # Without a key the app asks for one, or for the explicit unsigned choice (usage error, exit 2).
    refused = subprocess.run([binary, "--issuer", issuer, "--client-id", client_id, "--client-secret", secret,
                              "--base-url", bases["reference"], "--request-object", "by-reference"],
                             capture_output=True, text=True, timeout=60)
    check(refused.returncode == 2 and "--request-object-unsigned" in refused.stderr,
          "request-object: --request-object without --request-object-key or --request-object-unsigned is a usage error")
    for extra, what in ((["--request-object-key", key_file], "--request-object-key without --request-object"),
                        (["--request-object", "by-value", "--request-object-key", key_file, "--request-object-unsigned"],
                         "both --request-object-key and --request-object-unsigned"),
                        (["--request-object", "by-reference", "--request-object-key", key_file, "--request-object-lifetime", "3601"],
                         "--request-object-lifetime over 3600"),
                        (["--request-object", "by-uri", "--request-object-key", key_file], "--request-object by-uri")):
        refused = subprocess.run([binary, "--issuer", issuer, "--client-id", client_id, "--client-secret", secret,
                                  "--base-url", bases["reference"]] + extra, capture_output=True, text=True, timeout=60)
        check(refused.returncode == 2 and "--request-object" in refused.stderr, f"request-object: {what} is a usage error")

    by_reference = App(binary, "request-object-by-reference", ports["reference"],
                       common + ["--base-url", bases["reference"], "--request-object", "by-reference"])
    by_value = App(binary, "request-object-by-value", ports["value"],
                   common + ["--base-url", bases["value"], "--request-object", "by-value"])
    expiring = App(binary, "request-object-expiring", ports["expiry"],
                   common + ["--base-url", bases["expiry"], "--request-object", "by-reference", "--request-object-lifetime", "5"])
    try:
        user = Client()
        status, headers, _ = user.get(by_reference.base + "/login")
        location = headers.get("Location", "")
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        request_uri = query.get("request_uri", "")
        prefix = bases["reference"] + "/request-objects/"
        check(status == 302 and location.startswith(issuer) and set(query) == {"client_id", "request_uri", "response_type", "scope"}
              and query.get("client_id") == client_id and request_uri.startswith(prefix) and len(request_uri) - len(prefix) >= 43,
              "request-object: by reference, the authorization URL carries only client_id, request_uri, response_type and scope")
        object_id = request_uri[len(prefix):]

        def served():  # the app's log lines "request_object=<first 8 characters of the id> [...] request object served"
            by_reference.log.flush()
            with open(by_reference.log_path) as f:
                return sum(1 for line in f if f"request_object={object_id[:8]} " in line and line.rstrip().endswith("request object served"))
        check(served() == 0, "request-object: the app has not served the request object before the provider asks for it")
        redirect = gw_login.login(location, "alice", "password", gw_base, "openid", 15)
        # glewlwyd fetched the request object from the app (once per visit of the authorization URL).
        fetched = wait_until(served, 10, "the app's log of the request object served")
        check(fetched and "code=" in redirect and "state=" in redirect,
              "request-object: glewlwyd fetched the request object from the app (GET /request-objects/<id>) and answered with a code")
        status, _, _ = user.get(redirect)
        check(status == 302 and user.cookie("hbapp_session"), "request-object: the login by reference finishes with a session")
        status, _, body = user.get(by_reference.base + "/me")
        check(status == 200 and (json_of(body) or {}).get("iss") == issuer and (json_of(body) or {}).get("aud") in (client_id, [client_id]),
              "request-object: /me answers the ID Token's claims after the login by reference")

        status, headers, body = Client().get(request_uri)
        parts = body.decode(errors="replace").split(".")
        header = json.loads(base64.urlsafe_b64decode(parts[0] + "==")) if len(parts) == 3 else {}
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "==")) if len(parts) == 3 else {}
        check(status == 200 and headers.get("Content-Type") == "application/oauth-authz-req+jwt" and header.get("alg") == "ES256"
              and claims.get("iss") == client_id and claims.get("aud") == issuer and claims.get("client_id") == client_id
              and claims.get("redirect_uri") == bases["reference"] + "/callback" and claims.get("state") and claims.get("nonce")
              and claims.get("code_challenge_method") == "S256" and claims.get("exp", 0) - claims.get("iat", 0) == 300,
              "request-object: /request-objects/<id> serves the signed request object as application/oauth-authz-req+jwt")
        for unknown in ("/request-objects/" + secrets.token_urlsafe(32), "/request-objects/" + object_id[:-1], "/request-objects/..%2Fme"):
            status, _, _ = Client().get(by_reference.base + unknown)
            if not check(status == 404, f"request-object: an unknown id answers 404 ({unknown[:28]}...)"):
                break
        status, _, _ = Client().get(by_value.base + "/request-objects/" + object_id)
        check(status == 404, "request-object: another instance without --database has not got the request object (404)")

        # By value: the request object in `request`, no request_uri; the login finishes.
        user = Client()
        status, headers, _ = user.get(by_value.base + "/login")
        location = headers.get("Location", "")
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        check(status == 302 and set(query) == {"client_id", "request", "response_type", "scope"} and query["request"].count(".") == 2,
              "request-object: by value, the authorization URL carries client_id, request, response_type and scope")
        status, _, _ = user.get(gw_login.login(location, "alice", "password", gw_base, "openid", 15))
        check(status == 302 and user.get(by_value.base + "/me")[0] == 200, "request-object: the login by value finishes with a session")

        # --request-object-lifetime 5: the request object is served, then 404 once it expired (waited for, with a deadline).
        status, headers, _ = Client().get(expiring.base + "/login")
        short_uri = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(headers.get("Location", "")).query)).get("request_uri", "")
        status, _, body = Client().get(short_uri) if short_uri else (0, None, b"")
        exp = json.loads(base64.urlsafe_b64decode(body.decode().split(".")[1] + "==")) if status == 200 else {}
        check(status == 200 and exp.get("exp", 0) - exp.get("iat", 0) == 5, "request-object: --request-object-lifetime sets the request object's exp")
        wait_until(lambda: Client().get(short_uri)[0] == 404, 30, "the expired request object to answer 404")
        check(True, "request-object: an expired request object answers 404")
        # --request-object-unsigned (explicit): alg none, no signature; glewlwyd takes those only from public clients
        # and refuses this confidential one before any login page (403).
        unsigned = App(binary, "request-object-unsigned", ports["unsigned"],
                       ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret, "--scope", "openid",
                        "--base-url", bases["unsigned"], "--request-object", "by-reference", "--request-object-unsigned"])
        try:
            status, headers, _ = Client().get(unsigned.base + "/login")
            location = headers.get("Location", "")
            uri = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query)).get("request_uri", "")
            status, _, body = Client().get(uri) if uri else (0, None, b"")
            parts = body.decode(errors="replace").split(".")
            header = json.loads(base64.urlsafe_b64decode(parts[0] + "==")) if status == 200 and len(parts) == 3 else {}
            check(header.get("alg") == "none" and parts[2] == "", "request-object: --request-object-unsigned serves an alg none request object")
            status = Client().get(location)[0]
            unsigned.log.flush()
            with open(unsigned.log_path) as f:
                fetches = f.read().count("request object served")
            check(status == 403 and fetches == 2,  # ours, then glewlwyd's
                  "request-object: glewlwyd fetches the unsigned request object and refuses it for a confidential client (403)")
        finally:
            unsigned.stop()

        # --request-object-encrypt encrypts to the provider's current `use: enc` key; glewlwyd publishes only signing
        # keys, so the login cannot start (500, no redirect) and the log says why; nothing is sent unencrypted.
        encrypting = App(binary, "request-object-encrypting", ports["encrypt"],
                         common + ["--base-url", bases["encrypt"], "--request-object", "by-reference", "--request-object-encrypt"])
        try:
            status, headers, _ = Client().get(encrypting.base + "/login")
            encrypting.log.flush()
            with open(encrypting.log_path) as f:
                text = f.read()
            check(status == 500 and "Location" not in headers and "login could not start: request_object_failed" in text
                  and "request object published" not in text,
                  "request-object: --request-object-encrypt without a provider encryption key refuses to start the login (500)")
        finally:
            encrypting.stop()

        # A flood of /login from one client address (as the proxy names it in X-Real-IP) fills only that address's
        # share: its logins beyond the share answer 503 with Retry-After and publish nothing; another address still
        # gets a login whose request object is served.
        flood = App(binary, "request-object-flood", ports["flood"],
                    common + ["--base-url", bases["flood"], "--request-object", "by-reference", "--pending-logins-per-client", "3",
                              "--client-address-header", "X-Real-IP"])
        try:
            answers = [Client().get(flood.base + "/login", headers={"X-Real-IP": "203.0.113.9"}) for _ in range(6)]
            flood.log.flush()
            with open(flood.log_path) as f:
                published = f.read().count("request object published")
            check([a[0] for a in answers] == [302, 302, 302, 503, 503, 503] and all(a[1].get("Retry-After") for a in answers[3:])
                  and published == 3,
                  "request-object flood: one address gets 3 logins (its share), then 503 with Retry-After; nothing published for those")
            status, headers, _ = Client().get(flood.base + "/login", headers={"X-Real-IP": "198.51.100.7"})
            uri = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(headers.get("Location", "")).query)).get("request_uri", "")
            check(status == 302 and uri and Client().get(uri)[0] == 200,
                  "request-object flood: another address still starts a login, and its request object is served")
        finally:
            flood.stop()
    finally:
        by_reference.stop()
        by_value.stop()
        expiring.stop()

    # Two instances on one PostgreSQL behind one base URL (here: B's address, as if the load balancer sent the
    # provider's fetch and the callback to B): the login starts on A, glewlwyd fetches A's request object from B.
    pg_url = os.environ.get("PG_URL")
    if not pg_url:
        return skip("request-object replicas", "PG_URL is not set")
    shared = ["--database", pg_url, "--base-url", bases["shared"], "--request-object", "by-reference"]
    b = App(binary, "request-object-replica-b", ports["shared"], common + shared)
    a = App(binary, "request-object-replica-a", PORT_BASE + 14, common + shared)
    try:
        user = Client()
        status, headers, _ = user.get(a.base + "/login")
        location = headers.get("Location", "")
        request_uri = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query)).get("request_uri", "")
        check(status == 302 and request_uri.startswith(bases["shared"] + "/request-objects/"),
              "request-object replicas: A's request_uri is under the shared base URL")
        redirect = gw_login.login(location, "alice", "password", gw_base, "openid", 15)
        status, _, _ = user.get(redirect)
        check(status == 302 and user.cookie("hbapp_session") and user.get(b.base + "/me")[0] == 200,
              "request-object replicas: glewlwyd fetched A's request object from B (PostgreSQL) and the login finished on B")
        object_id = request_uri.rsplit("/", 1)[-1]
        status, headers, _ = Client().get(a.base + "/request-objects/" + object_id)
        check(status == 200 and headers.get("Content-Type") == "application/oauth-authz-req+jwt",
              "request-object replicas: A serves the same request object from PostgreSQL")
        status, _, _ = Client().get(b.base + "/request-objects/" + secrets.token_urlsafe(32))
        check(status == 404, "request-object replicas: an unknown id answers 404 from PostgreSQL")
    finally:
        a.stop()
        b.stop()


def part_mcp(binary):
    """The app's MCP endpoint (--mcp): the Python MCP SDK (PyPI `mcp`, .venv-mcp) calls whoami with a glewlwyd
    client-credentials token whose `resource` (RFC 8707) is <base-url>/mcp; refusals carry the RFC 9728 challenge."""
    issuer, gw_base = os.environ.get("GLEWLWYD_ISSUER"), os.environ.get("GLEWLWYD_BASE")
    if not issuer or not gw_base:
        return skip("mcp", "GLEWLWYD_ISSUER / GLEWLWYD_BASE are not set")
    python = os.path.join(HERE, ".venv-mcp", "bin", "python")
    if not os.path.exists(python):
        return skip("mcp", "the MCP venv is missing (Samples/hummingbird-app/Tests/mcp-setup.sh)")
    gw = load_module("glewlwyd_configure", os.path.join(ROOT, "Tests", "Glewlwyd", "configure.py"))
    port = PORT_BASE + 20
    base = f"http://127.0.0.1:{port}"
    endpoint = base + "/mcp"
    # The app trusts glewlwyd's "mcp" plugin (Tests/Glewlwyd/configure.py): the same keys and switches as "oidc", with
    # open dynamic registration (RFC 7591, no initial access token), which the Python SDK's own OAuth flow needs; its
    # resource-scope mapping grants GLEWLWYD_MCP_RESOURCES to a client that registered itself.
    mcp_issuer = os.environ.get("GLEWLWYD_MCP_ISSUER")
    open_registration = bool(mcp_issuer) and endpoint in os.environ.get("GLEWLWYD_MCP_RESOURCES", "").split(",")
    if not open_registration:
        why = ("GLEWLWYD_MCP_ISSUER is not set (a glewlwyd configured before its \"mcp\" plugin: restart it)" if not mcp_issuer
               else f"{endpoint} is not in GLEWLWYD_MCP_RESOURCES (HBAPP_PORT_BASE other than configure.py's)")
        if CI:
            check(False, f"mcp: glewlwyd's open-registration plugin serves this endpoint ({why})")
        else:
            skip("mcp dynamic registration", why + "; the SDK's flow runs with a client registered beforehand")
    issuer = mcp_issuer or issuer
    other_resource = os.environ.get("GLEWLWYD_RESOURCE") or "https://rs.glewlwyd.test/api"
    py_port = PORT_BASE + 21
    py_endpoint = f"http://127.0.0.1:{py_port}/mcp"  # the Python-SDK MCP server (mcp_server.py)
    # glewlwyd grants a `resource` listed in the client's `resource` property (resource-client-property).
    client_id, secret = "hbapp-mcp-" + secrets.token_hex(4), secrets.token_urlsafe(24)
    admin = gw.Admin(gw_base)
    admin.call("POST", "/api/auth/", {"username": "admin", "password": "password"})
    admin.call("POST", "/api/client/", {
        "client_id": client_id, "name": client_id, "enabled": True, "confidential": True, "password": secret,
        "redirect_uri": [base + "/callback"], "authorization_type": ["code", "client_credentials"],
        "scope": ["openid", "api.read", "api.write"], "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"],
        "resource": [endpoint, py_endpoint, other_resource]})
    app = App(binary, "mcp-app", port, ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret,
                                        "--base-url", base, "--mcp", "--mcp-require-scope", "api.read"])
    try:
        http = Client()
        basic = "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()

        def token_request(form, headers=None):
            return http.request("POST", issuer + "/token", urllib.parse.urlencode(form).encode(),
                                dict({"Authorization": basic, "Content-Type": "application/x-www-form-urlencoded"}, **(headers or {})))

        def service_token(scope, resource):
            status, _, body = token_request({"grant_type": "client_credentials", "scope": scope, "resource": resource})
            if status != 200:
                raise AssertionError(f"client credentials with resource={resource} answered {status}: {body[:200]!r}")
            return json.loads(body)["access_token"]

        def sdk_whoami(token):
            args = [python, os.path.join(HERE, "mcp_client.py"), "--url", endpoint, "--timeout", "30"]
            if token:
                args += ["--token", token]
            result = subprocess.run(args, capture_output=True, text=True, timeout=60)
            return result.returncode, result.stdout.strip(), result.stderr.strip()

        token = service_token("api.read", endpoint)
        payload = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
        check(endpoint in (payload.get("aud") if isinstance(payload.get("aud"), list) else [payload.get("aud")]),
              f"mcp: glewlwyd's client-credentials token names resource {endpoint} as its aud (RFC 8707)")
        code, out, err = sdk_whoami(token)
        answer = json_of(out) or {}
        check(code == 0 and answer.get("client_id") == client_id and "api.read" in answer.get("scope", []) and "sub" in answer,
              f"mcp: the Python MCP SDK calls whoami on /mcp with the token ({out or err[-300:]})")

        initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "app_tests", "version": "1"}}}).encode()
        mcp_headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

        def post(authorization=None, extra=None):
            headers = dict(mcp_headers, **({"Authorization": authorization} if authorization else {}), **(extra or {}))
            return http.request("POST", endpoint, initialize, headers)

        wanted = f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
        status, headers, _ = post()
        challenges = headers.get_all("WWW-Authenticate") or []
        check(status == 401 and challenges and challenges[0].startswith("Bearer") and all(wanted in c for c in challenges),
              f"mcp: no token answers 401 with Bearer {wanted} (RFC 9728 path insertion)")
        code, _, err = sdk_whoami(None)
        check(code != 0 and "401" in err, "mcp: the Python MCP SDK without a token is refused (401)")
        status, headers, _ = post("Bearer " + service_token("api.read", other_resource))
        check(status == 401 and 'error="invalid_token"' in headers.get("WWW-Authenticate", "") and wanted in headers.get("WWW-Authenticate", ""),
              "mcp: a token for another resource answers 401 invalid_token with the challenge")
        code, _, err = sdk_whoami(service_token("api.read", other_resource))
        check(code != 0 and "401" in err, "mcp: the Python MCP SDK with a token for another resource is refused (401)")
        status, headers, _ = post("Bearer " + service_token("api.write", endpoint))
        challenge = headers.get("WWW-Authenticate", "")
        check(status == 403 and 'error="insufficient_scope"' in challenge and 'scope="api.read"' in challenge,
              "mcp: a token without --mcp-require-scope answers 403 insufficient_scope naming api.read")
        status, _, body = http.get(base + "/.well-known/oauth-protected-resource/mcp")
        document = json_of(body) or {}
        check(status == 200 and document.get("resource") == endpoint and document.get("authorization_servers") == [issuer]
              and document.get("scopes_supported") == ["api.read"],
              "mcp: the metadata at /.well-known/oauth-protected-resource/mcp names resource <base-url>/mcp and the issuer")
        status, _, body = http.get(base + "/.well-known/oauth-protected-resource")
        check(status == 200 and (json_of(body) or {}).get("resource") == base,
              "mcp: /api/resource's metadata is unchanged (resource = the base URL)")

        # The SDK's own OAuth flow (OAuthClientProvider): RFC 9728 discovery from the 401, RFC 8414 then OpenID discovery
        # of glewlwyd, dynamic registration (RFC 7591) at its registration_endpoint, authorization code with PKCE and
        # resource, alice's login scripted (login.py), then whoami as alice with the registered client.
        args = [python, os.path.join(HERE, "mcp_oauth_client.py"), "--url", endpoint, "--redirect-uri", base + "/callback",
                "--login-script", os.path.join(ROOT, "Tests", "Glewlwyd", "login.py")]
        if not open_registration:
            args += ["--client-id", client_id, "--client-secret", secret]
        result = subprocess.run(args, capture_output=True, text=True, timeout=120)
        lines = result.stdout.strip().splitlines()
        answer = (json_of(lines[-1]) if lines else None) or {}
        used = dict(item.split("=", 1) for item in lines[1].split()[1:] if "=" in item) if len(lines) == 3 else {}
        registered = used.get("client_id", "")
        flow = f"({result.stdout.strip() or result.stderr[-300:]})"
        check(result.returncode == 0 and len(lines) == 3
              and lines[0] == f"authorize code_challenge_method=S256 resource={endpoint}"
              and answer.get("client_id") == registered and answer.get("sub") not in (None, "", registered)
              and answer.get("sub") == used.get("token_sub"),
              f"mcp: the Python MCP SDK's own OAuth flow (discovery, code + PKCE + resource, scripted login) ends in whoami "
              f"answering the access token's sub, the user's {flow}")
        if open_registration:
            check(used.get("registered") == "yes" and registered not in ("", client_id),
                  f"mcp: the Python MCP SDK registered a new client dynamically (RFC 7591, no initial access token) {flow}")
            try:  # the admin API answers 404 for a client glewlwyd does not know (Admin.call exits on it)
                known = admin.call("GET", "/api/client/" + urllib.parse.quote(registered)) if registered else None
            except SystemExit as error:
                known = {"error": str(error)[:200]}
            check((known or {}).get("client_id") == registered and registered != "",
                  f"mcp: glewlwyd knows the client the SDK registered ({registered or 'none'}: "
                  f"{ {k: (known or {}).get(k) for k in ('client_id', 'name', 'authorization_type', 'error')} })")  # never its secret

        # sample-mcp-call (the root package's; ProtectedResourceAccess, client credentials with resource): against the
        # app, and against an MCP server written with the Python SDK and its own token verifier.
        sample = os.environ.get("SAMPLE_MCP_CALL") or os.path.join(ROOT, ".build", "debug", "sample-mcp-call")
        if not os.access(sample, os.X_OK):
            skip("mcp sample-mcp-call", f"no executable at {sample} (swift build in the repository, or SAMPLE_MCP_CALL)")
        else:
            issuer_host = urllib.parse.urlsplit(issuer).netloc

            def sample_call(server, *extra):
                result = subprocess.run([sample, "--server", server, "--client-id", client_id, "--client-secret", secret, *extra],
                                        capture_output=True, text=True, timeout=60)
                return result.returncode, result.stdout.strip(), result.stderr.strip()

            code, out, err = sample_call(endpoint)
            check(code == 1 and "resource_metadata_host_refused" in err,
                  "mcp: sample-mcp-call refuses the loopback authorization server the resource names unless admitted (fetch policy)")
            code, out, err = sample_call(endpoint, "--allow-host", issuer_host)
            answer = json_of(out) or {}
            check(code == 0 and answer.get("client_id") == client_id and answer.get("scope") == ["api.read"],
                  f"mcp: sample-mcp-call gets a token from the 401 and calls whoami on the app ({out or err[-300:]})")
            # --dpop: the token request carries a proof (glewlwyd asks for its nonce first), only a DPoP token type is
            # accepted, and each MCP request goes with Authorization: DPoP and a proof; /mcp refuses a DPoP-bound token
            # presented any other way (the DPoP checks below), so whoami answering proves both.
            code, out, err = sample_call(endpoint, "--allow-host", issuer_host, "--dpop")
            answer = json_of(out) or {}
            check(code == 0 and answer.get("client_id") == client_id and answer.get("scope") == ["api.read"],
                  f"mcp: sample-mcp-call --dpop gets a DPoP-bound token and calls whoami on the app with proofs ({out or err[-300:]})")
            code, out, err = sample_call(endpoint, "--trust-issuer", "https://as.example.test")
            check(code == 1 and "no_trusted_authorization_server" in err,
                  "mcp: sample-mcp-call refuses an authorization server other than --trust-issuer")
            status, _, body = http.get(issuer + "/.well-known/openid-configuration")
            jwks_uri = (json_of(body) or {}).get("jwks_uri", "")
            py_log = open(os.path.join(WORK, "mcp-python-server.log"), "w")
            py_server = subprocess.Popen([python, os.path.join(HERE, "mcp_server.py"), "--port", str(py_port), "--issuer", issuer,
                                          "--jwks-uri", jwks_uri, "--require-scope", "api.read"],
                                         stdout=subprocess.PIPE, stderr=py_log, text=True)
            try:
                line = py_server.stdout.readline().strip()  # "listening" once bound (the server's own deadline: 60 s)
                if line != "listening":
                    raise AssertionError(f"mcp_server.py did not start: {line!r}")
                code, out, err = sample_call(py_endpoint, "--trust-issuer", issuer)
                answer = json_of(out) or {}
                check(code == 0 and answer.get("client_id") == client_id and answer.get("scope") == ["api.read"],
                      f"mcp: sample-mcp-call calls whoami on a Python-SDK MCP server with its own token verifier ({out or err[-300:]})")
            finally:
                py_server.terminate()
                py_server.wait(timeout=10)
                py_log.close()

        # A DPoP-bound token (RFC 9449) for <base-url>/mcp, presented with a proof whose htu is <base-url>/mcp.
        if subprocess.run(["sh", "-c", "command -v jose"], capture_output=True).returncode != 0:
            return skip("mcp DPoP", "the jose CLI is not installed")
        key, jwk = dpop_key()
        form = {"grant_type": "client_credentials", "scope": "api.read", "resource": endpoint}
        nonce = None
        for _ in range(2):  # glewlwyd may first ask for its nonce
            status, headers, body = token_request(form, {"DPoP": dpop_proof(key, jwk, "POST", issuer + "/token", nonce=nonce)})
            if status == 200 or not headers.get("DPoP-Nonce"):
                break
            nonce = headers.get("DPoP-Nonce")
        tokens = json_of(body) or {}
        check(status == 200 and tokens.get("token_type", "").lower() == "dpop", "mcp: a DPoP-bound token for /mcp is issued")
        bound = tokens.get("access_token", "")
        status, headers, body = post("DPoP " + bound, {"DPoP": dpop_proof(key, jwk, "POST", endpoint, access_token=bound)})
        check(status == 200 and "serverInfo" in body.decode(errors="replace"),
              f"mcp: /mcp accepts the DPoP-bound token with its proof (htu = <base-url>/mcp) ({status})")
        status, headers, _ = post("Bearer " + bound)
        check(status == 401 and any('Bearer error="invalid_token"' in c for c in headers.get_all("WWW-Authenticate") or []),
              "mcp: the DPoP-bound token as Bearer answers invalid_token")
        status, headers, _ = post("DPoP " + bound, {"DPoP": dpop_proof(key, jwk, "POST", base + "/api/resource", access_token=bound)})
        check(status == 401 and 'DPoP error="invalid_dpop_proof"' in " ".join(headers.get_all("WWW-Authenticate") or []),
              "mcp: a proof for another htu answers invalid_dpop_proof")
    finally:
        app.stop()
# MARK: - Shared Signals (--ssf-transmitter): Tests/SharedSignals/transmitter.py as the transmitter

CAEP = "https://schemas.openid.net/secevent/caep/event-type/"
RISC = "https://schemas.openid.net/secevent/risc/event-type/"
SSF = "https://schemas.openid.net/secevent/ssf/event-type/"


class Transmitter:
    """The scripted SSF transmitter on a port of PORT_BASE+10 ... PORT_BASE+17, stopped by closing its stdin."""

    def __init__(self):
        self.token = "ssf-mgmt-" + secrets.token_hex(8)
        script = os.path.join(ROOT, "Tests", "SharedSignals", "transmitter.py")
        self.process = subprocess.Popen([sys.executable, script, "--ports", f"{PORT_BASE + 10}-{PORT_BASE + 17}", "--token", self.token],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().strip()  # the port, once it listens (or nothing when it exits)
        if not line.isdigit():
            raise AssertionError("the transmitter did not start")
        self.issuer = f"http://127.0.0.1:{line}"
        os.makedirs(WORK, exist_ok=True)
        self.token_file = os.path.join(WORK, "ssf-token")
        with open(os.open(self.token_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write(self.token + "\n")

    def control(self, name, body=None):
        status, _, answer = Client().request("GET" if name == "log" else "POST", f"{self.issuer}/control/{name}",
                                             None if name == "log" else json.dumps(body or {}).encode(),
                                             {"Content-Type": "application/json"})
        if status != 200:
            raise AssertionError(f"transmitter control {name} answered {status}")
        return json.loads(answer)

    def log(self):
        return self.control("log")

    def set_status(self, stream_id, status):
        return Client().request("POST", self.issuer + "/status", json.dumps({"stream_id": stream_id, "status": status}).encode(),
                                {"Content-Type": "application/json", "Authorization": "Bearer " + self.token})[0]

    def stop(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def ssf_event(kind, subject, members=None, **extra):
    spec = {"events": {kind: members or {}}, "sub_id": subject}
    spec.update(extra)
    return spec


def ssf_status(app):
    status, _, body = Client().get(app.base + "/ssf/status")
    return json_of(body) if status == 200 else None


def dot_user(username, password, email):
    dot_shell(f"""
from django.contrib.auth import get_user_model
u, _ = get_user_model().objects.update_or_create(username={username!r}, defaults=dict(email={email!r}))
u.set_password({password!r})
u.save()
print("ok")
""")


def ssf_login(idp_login, app, base, username, password):
    """A browser (cookie jar) logged in through the provider's form: /login on `app`, the callback on `app`."""
    browser = Client()
    _, headers, _ = browser.get(app.base + "/login")
    redirect = idp_login.login(headers.get("Location", ""), username, password)
    status, _, _ = browser.get(redirect.replace(base, app.base, 1))
    if status != 302 or not browser.cookie("hbapp_session"):
        raise AssertionError(f"{username} could not log in ({status})")
    _, _, body = browser.get(app.base + "/me")
    return browser, (json_of(body) or {}).get("sub")


def me_status(browser, app):
    return browser.get(app.base + "/me")[0]


def psql(pg, sql):
    result = subprocess.run(["psql", pg, "-Atc", sql], capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise AssertionError(f"psql failed: {result.stderr[-500:]}")
    return [line for line in result.stdout.splitlines() if line]


def part_ssf(binary):
    """Push delivery to one instance: stream creation and verification, every refusal with its err, the effects."""
    issuer = os.environ.get("IDP_ISSUER")
    if not issuer:
        return skip("shared signals (push)", "IDP_ISSUER is not set")
    idp_login = load_module("idp_login", os.path.join(ROOT, "Tests", "IdP", "login.py"))
    client_id, secret = "hbapp-ssf", "hbapp-ssf-secret"
    port = PORT_BASE + 18
    base = f"http://127.0.0.1:{port}"
    dot_register(client_id, secret, [base])
    dot_user("carol", "carol-password-1", "carol@example.com")
    transmitter = Transmitter()
    app = None
    try:
        app = App(binary, "ssf-app", port, ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret, "--base-url", base,
                                            "--ssf-transmitter", transmitter.issuer, "--ssf-access-token-file", transmitter.token_file])
        status = wait_until(lambda: (ssf_status(app) or {}).get("verified") and ssf_status(app), 20, "the verification SET")
        stream = transmitter.log()["stream"] or {}
        delivery = stream.get("delivery") or {}
        check(status.get("stream_id") == stream.get("stream_id") and status.get("delivery") == "push" and status.get("status") == "enabled"
              and status.get("verified") is True, "ssf: the stream is created and verified (/ssf/status)")
        check(delivery.get("method") == "urn:ietf:rfc:8935" and delivery.get("endpoint_url") == base + "/ssf/events"
              and delivery.get("authorization_header", "").startswith("Bearer ") and len(delivery["authorization_header"]) > 20,
              "ssf: push delivery to <base-url>/ssf/events with a random Authorization header")
        requested = set(stream.get("events_requested") or [])
        check({CAEP + "session-revoked", CAEP + "credential-change", RISC + "account-disabled", RISC + "account-purged",
               SSF + "verification"} <= requested, "ssf: events_requested has session-revoked, credential-change, account-disabled, account-purged, verification")
        authorization = delivery.get("authorization_header", "")

        alice, alice_sub = ssf_login(idp_login, app, base, "alice", "alice-password-1")
        carol, carol_sub = ssf_login(idp_login, app, base, "carol", "carol-password-1")
        check(me_status(alice, app) == 200 and me_status(carol, app) == 200 and alice_sub and carol_sub, "ssf: alice and carol are logged in")
        alice_subject = {"format": "iss_sub", "iss": issuer, "sub": alice_sub}

        def push(token, auth=authorization, content_type="application/secevent+jwt"):
            headers = {"Content-Type": content_type}
            if auth is not None:
                headers["Authorization"] = auth
            status, _, body = Client().request("POST", base + "/ssf/events", token.encode(), headers)
            return status, json_of(body) if body else None

        def signed(spec):
            return transmitter.control("sign", spec)["set"]

        revoke = ssf_event(CAEP + "session-revoked", alice_subject)
        valid = signed(revoke)
        check(push(valid, auth=None)[0] == 401, "ssf: a push without Authorization answers 401")
        check(push(valid, auth="Bearer wrong")[0] == 401, "ssf: a push with another Authorization answers 401")
        refusals = [
            ("an unknown kid", dict(revoke, header={"kid": "unknown-kid"}), "invalid_key"),
            ("another issuer", dict(revoke, claims={"iss": "http://127.0.0.1:1/other"}), "invalid_issuer"),
            ("another audience", dict(revoke, claims={"aud": "https://someone-else.example"}), "invalid_audience"),
            ("typ JWT", dict(revoke, header={"typ": "JWT"}), "invalid_request"),
            ("two events", {"events": {CAEP + "session-revoked": {}, RISC + "account-disabled": {}}, "sub_id": alice_subject}, "invalid_request"),
            ("no jti", dict(revoke, drop=["jti"]), "invalid_request"),
            ("no iat", dict(revoke, drop=["iat"]), "invalid_request"),
        ]
        for what, spec, err in refusals:
            status, body = push(signed(spec))
            check(status == 400 and (body or {}).get("err") == err and (body or {}).get("description"),
                  f"ssf: {what}: 400 {{\"err\": \"{err}\"}}")
        head, payload, signature = valid.split(".")
        forged = head + "." + payload + "." + ("A" if signature[0] != "A" else "B") + signature[1:]
        status, body = push(forged)
        check(status == 400 and (body or {}).get("err") == "invalid_key", "ssf: a bad signature: 400 {\"err\": \"invalid_key\"}")
        status, body = push("not-a-jwt")
        check(status == 400 and (body or {}).get("err") == "invalid_request", "ssf: a malformed SET: 400 invalid_request")
        check(me_status(alice, app) == 200, "ssf: no refused SET ended alice's session")

        for kind in ("https://example.com/event-type/unknown", CAEP + "token-claims-change"):
            answer = transmitter.control("emit", ssf_event(kind, alice_subject))
            check(answer.get("status") == 202 and answer.get("body") == "" and me_status(alice, app) == 200,
                  f"ssf: {kind.rsplit('/', 1)[-1]} (unknown or unrequested): 202, no effect")
        before = ssf_status(app)
        answer = transmitter.control("emit", revoke)
        check(answer.get("status") == 202 and answer.get("body") == "", "ssf: a valid session-revoked SET: 202 with an empty body")
        check(me_status(alice, app) == 401, "ssf: session-revoked: alice's next /me answers as for a visitor (401)")
        check(alice.get(app.base + "/upstream")[0] == 401, "ssf: session-revoked: alice's /upstream answers 401 (no tokens)")
        check(me_status(carol, app) == 200, "ssf: carol's session is untouched")
        pushed = transmitter.log()["pushed"][-1]["body"]
        after = ssf_status(app)
        check(push(pushed)[0] == 202 and ssf_status(app)["acted"] == after["acted"] == before["acted"] + 1,
              "ssf: the same SET again (repeated jti): 202, not acted on twice")

        alice, _ = ssf_login(idp_login, app, base, "alice", "alice-password-1")
        answer = transmitter.control("emit", ssf_event(CAEP + "credential-change", {"format": "email", "email": "Alice@Example.com"},
                                                       {"credential_type": "password", "change_type": "update"}))
        check(answer.get("status") == 202 and me_status(alice, app) == 401 and me_status(carol, app) == 200,
              "ssf: credential-change about the email subject ends alice's sessions, not carol's")
        for kind in (RISC + "account-disabled", RISC + "account-purged"):
            carol, _ = ssf_login(idp_login, app, base, "carol", "carol-password-1")
            answer = transmitter.control("emit", ssf_event(kind, {"format": "iss_sub", "iss": issuer, "sub": carol_sub}))
            check(answer.get("status") == 202 and me_status(carol, app) == 401, f"ssf: {kind.rsplit('/', 1)[-1]} ends carol's sessions")

        check(transmitter.set_status(stream.get("stream_id"), "paused") == 200
              and wait_until(lambda: (ssf_status(app) or {}).get("status") == "paused", 10, "stream-updated"),
              "ssf: a stream-updated SET (paused) shows in /ssf/status")
        final = ssf_status(app)
        check(final["received"] >= 7 and final["acted"] == 4, f"ssf: /ssf/status counts received and acted SETs ({final})")
    finally:
        if app:
            app.stop()
        transmitter.stop()


def part_ssf_poll(binary):
    """Poll delivery: verification, a session-revoked SET acted on and acknowledged, a refused one reported in setErrs."""
    issuer = os.environ.get("IDP_ISSUER")
    if not issuer:
        return skip("shared signals (poll)", "IDP_ISSUER is not set")
    idp_login = load_module("idp_login", os.path.join(ROOT, "Tests", "IdP", "login.py"))
    client_id, secret = "hbapp-ssf", "hbapp-ssf-secret"
    port = PORT_BASE + 18
    base = f"http://127.0.0.1:{port}"
    dot_register(client_id, secret, [base])
    transmitter = Transmitter()
    app = None
    try:
        app = App(binary, "ssf-poll-app", port, ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret, "--base-url", base,
                                                 "--ssf-transmitter", transmitter.issuer, "--ssf-access-token-file", transmitter.token_file,
                                                 "--ssf-delivery", "poll", "--ssf-poll-interval", "1"])
        status = wait_until(lambda: (ssf_status(app) or {}).get("verified") and ssf_status(app), 20, "the polled verification SET")
        stream = transmitter.log()["stream"] or {}
        check(status.get("delivery") == "poll" and stream.get("delivery", {}).get("method") == "urn:ietf:rfc:8936",
              "ssf poll: a poll stream, verified through a poll")
        check(Client().request("POST", base + "/ssf/events", b"x", {"Content-Type": "application/secevent+jwt"})[0] in (404, 405),
              "ssf poll: no push route")
        alice, alice_sub = ssf_login(idp_login, app, base, "alice", "alice-password-1")
        revoke = transmitter.control("emit", ssf_event(CAEP + "session-revoked", {"format": "iss_sub", "iss": issuer, "sub": alice_sub}))
        bad = transmitter.control("emit", ssf_event(CAEP + "session-revoked", {"format": "iss_sub", "iss": issuer, "sub": alice_sub},
                                                    claims={"aud": "https://someone-else.example"}))
        wait_until(lambda: me_status(alice, app) == 401, 20, "alice's session to end")
        check(True, "ssf poll: a polled session-revoked SET ends alice's session")
        log = wait_until(lambda: (lambda l: l if revoke["jti"] in l["acks"] and bad["jti"] in l["set_errs"] else None)(transmitter.log()),
                         20, "the acknowledgement and the setErrs")
        check(log["set_errs"][bad["jti"]].get("err") == "invalid_audience" and bad["jti"] not in log["acks"],
              "ssf poll: the refused SET is reported in setErrs (invalid_audience), not acknowledged")
        check(log["queued"] == 0 and revoke["jti"] in log["acks"], "ssf poll: the valid SET is acknowledged in a later poll")
        check((ssf_status(app) or {}).get("acted") == 1, "ssf poll: acted once")
    finally:
        if app:
            app.stop()
        transmitter.stop()


def part_ssf_replicas(binary):
    """Two instances on one PostgreSQL behind one base URL, one push stream: a SET ends the user's sessions on both."""
    issuer, pg = os.environ.get("IDP_ISSUER"), os.environ.get("PG_URL")
    if not issuer or not pg:
        return skip("shared signals on two instances", "IDP_ISSUER or PG_URL is not set")
    idp_login = load_module("idp_login", os.path.join(ROOT, "Tests", "IdP", "login.py"))
    client_id, secret = "hbapp-ssf-replicas", "hbapp-ssf-replicas-secret"
    port_a, port_b = PORT_BASE + 18, PORT_BASE + 19
    base = f"http://127.0.0.1:{port_b}"  # the shared origin is instance B's port, as in part_replicas
    dot_register(client_id, secret, [base])
    dot_user("carol", "carol-password-1", "carol@example.com")
    os.makedirs(WORK, exist_ok=True)
    key_file = os.path.join(WORK, "database.key")
    with open(os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(secrets.token_hex(32) + "\n")
    transmitter = Transmitter()
    common = ["--issuer", issuer, "--client-id", client_id, "--client-secret", secret, "--base-url", base, "--database", pg,
              "--database-key", key_file, "--ssf-transmitter", transmitter.issuer, "--ssf-access-token-file", transmitter.token_file]
    a = b = None
    try:
        b = App(binary, "ssf-replica-b", port_b, common)
        wait_until(lambda: (ssf_status(b) or {}).get("verified"), 20, "B's verification")
        a = App(binary, "ssf-replica-a", port_a, common)  # the transmitter answers its create 409: it reuses the stream
        sa, sb = wait_until(lambda: ssf_status(a), 10, "A's status"), ssf_status(b)
        check(sa["stream_id"] == sb["stream_id"] and len([line for line in open(a.log_path) if "reusing the existing stream" in line]) == 1,
              "ssf replicas: the second instance reuses the stream (409, GET, PATCH)")
        authorization = transmitter.log()["stream"]["delivery"]["authorization_header"]

        def token_keys():
            return set(psql(pg, "SELECT token_key FROM oidc_tokens WHERE token_key LIKE 'hbapp:%'"))

        keys0 = token_keys()
        alice, alice_sub = ssf_login(idp_login, a, base, "alice", "alice-password-1")
        keys1 = token_keys()
        carol, carol_sub = ssf_login(idp_login, a, base, "carol", "carol-password-1")
        keys2 = token_keys()
        alice_keys, carol_keys = keys1 - keys0, keys2 - keys1
        check(me_status(alice, a) == 200 and me_status(alice, b) == 200 and alice_keys and carol_keys,
              "ssf replicas: alice and carol logged in, known to both instances, tokens in PostgreSQL")
        answer = transmitter.control("emit", ssf_event(CAEP + "session-revoked", {"format": "iss_sub", "iss": issuer, "sub": alice_sub}))
        check(answer.get("status") == 202, "ssf replicas: the SET pushed to the base URL (instance B) answers 202")
        check(me_status(alice, a) == 401 and me_status(alice, b) == 401, "ssf replicas: alice's session no longer authenticates on A nor B")
        check(me_status(carol, a) == 200 and me_status(carol, b) == 200, "ssf replicas: carol's session is untouched on both")
        keys3 = token_keys()
        check(not (alice_keys & keys3) and carol_keys <= keys3, "ssf replicas: alice's tokens are deleted from PostgreSQL, carol's kept")
        rows = psql(pg, f"SELECT count(*) FROM oidc_sessions WHERE issuer = '{issuer}' AND subject = '{alice_sub}'")
        check(rows == ["0"], "ssf replicas: alice has no session row left")
        pushed = transmitter.log()["pushed"][-1]
        status, _, _ = Client().request("POST", a.base + "/ssf/events", pushed["body"].encode(),
                                        {"Content-Type": "application/secevent+jwt", "Authorization": authorization})
        check(status == 202 and ssf_status(a)["acted"] == 0 and ssf_status(b)["acted"] == 1,
              "ssf replicas: the same SET at instance A: 202, not acted on again (shared replay cache)")
    finally:
        for app in (a, b):
            if app:
                app.stop()
        transmitter.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--app", choices=["hummingbird-app", "vapor-app"],
                    help="the app the binary is (default: its file name); its name must answer GET /")
    ap.add_argument("--only", action="append", choices=["cli", "browser", "replicas", "redis", "glewlwyd", "mtls", "request-object",
                                                        "ssf", "ssf-poll", "ssf-replicas", "mcp"])
    a = ap.parse_args()
    global APP
    APP = a.app or os.path.basename(a.binary)
    parts = {"cli": part_cli, "browser": part_browser, "replicas": part_replicas, "redis": part_redis, "glewlwyd": part_glewlwyd,
             "mtls": part_mtls, "request-object": part_request_object, "ssf": part_ssf, "ssf-poll": part_ssf_poll,
             "ssf-replicas": part_ssf_replicas, "mcp": part_mcp}
    # Shared Signals and MCP are served by hummingbird-app only (vapor-app refuses their flags: the cli part checks that).
    hummingbird_only = {"ssf", "ssf-poll", "ssf-replicas", "mcp"}
    default = [name for name in parts if APP == "hummingbird-app" or name not in hummingbird_only]
    for name in a.only or default:
        log(f"part {name}")
        try:
            parts[name](a.binary)
        except Exception as error:  # a failed step fails its part, the others still run
            traceback.print_exc()
            check(False, f"{name}: {error}")
    log(f"{checks['passed']} passed, {checks['failed']} failed, {checks['skipped']} skipped")
    return 1 if checks["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
