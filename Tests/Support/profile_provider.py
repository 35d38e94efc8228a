#!/usr/bin/env python3
"""A scripted OpenID provider that behaves as a large provider's documentation says (standard library + openssl).

    python3 profile_provider.py --port PORT --profile entra|google|apple|keycloak|okta|auth0 --keys KEYS_DIR

Binds 127.0.0.1:PORT (0: a free port), prints the port on stdout, serves until stdin closes. The user is
chosen by the authorization request's login_hint (see USERS). Tokens are RS256, signed with
KEYS_DIR/rsa2048.pem (kid "sig-1"). Client: "app" with secret "app-secret" (basic or post), except Apple.

- entra: discovery at /{common|organizations|consumers|<tenant GUID>}/v2.0/.well-known/openid-configuration;
  issuer the template BASE/{tenantid}/v2.0 for common and organizations, BASE/<consumer tenant>/v2.0 for
  consumers, BASE/<GUID>/v2.0 for one tenant. ID Tokens: iss BASE/<tid>/v2.0 and tid (user "forged@contoso"
  gets a tid of contoso but the iss of fabrikam; "forgedapi@contoso" only in its API access token). /graph-token answers a Graph-style access token (nonce in
  its JWS header). With scope api://orders/read the access token is a v2.0 JWT for that API (aud API_APP).
- google: issuer BASE; ID Token iss without scheme (127.0.0.1:PORT) for alice, with scheme for bob; hd per user.
- apple: issuer BASE; token endpoint accepts only client_secret_post whose client_secret is an ES256 JWT
  (kid KEY123ABCD, iss TEAM123ABC, sub = client_id, aud = BASE, exp - iat <= 15777000, not expired) verified
  with KEYS_DIR/p256.pub.pem; authorization requires response_mode=form_post and answers an HTML form that
  posts code, state and, on the user's first authorization, `user` (JSON name and email). email_verified and
  is_private_email are the strings "true"/"false".
- keycloak: issuer BASE/realms/demo; JWK Set with a `use: enc` key before the signing key; access tokens
  typ JWT, payload typ Bearer, aud "account", azp = client ("foreign": azp other-app, aud other-api), no client_id.
- okta: issuer BASE/oauth2/default (a custom authorization server).
- auth0: issuer BASE/ (trailing slash); the `audience` authorization parameter makes a JWT access token for it;
  ID Token updated_at is an ISO 8601 string. As Auth0 does: a refresh token when the scope has offline_access,
  the refresh_token grant (a new ID Token, updated_at again a string, no nonce) and /userinfo (Bearer; its
  updated_at a string too).
"""
import argparse, base64, hashlib, http.server, json, os, secrets, subprocess, sys, tempfile, threading, time, urllib.parse

CONSUMER = "9188040d-6c67-4c5b-b112-36a304b66dad"
CONTOSO = "72f988bf-86f1-41af-91ab-2d7cd011db47"
FABRIKAM = "0b1a2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
API_APP = "6e74172b-be56-4843-9ff4-e66a39bb12e3"  # the API's client id (aud of its v2.0 access tokens)
API_SCOPE = "api://orders/read"
USERS = {
    "entra": {"alice@contoso": {"tid": CONTOSO}, "bob@fabrikam": {"tid": FABRIKAM}, "carol@outlook": {"tid": CONSUMER},
              "forged@contoso": {"tid": CONTOSO, "iss_tid": FABRIKAM},
              "forgedapi@contoso": {"tid": CONTOSO, "api_iss_tid": FABRIKAM}},
    "google": {"alice@example.com": {"hd": "example.com", "schemeless": True}, "bob@gmail.com": {},
               "eve@other.example": {"hd": "other.example", "schemeless": True}},
    "apple": {"alice@privaterelay": {}},
    "keycloak": {"alice": {}, "foreign": {"azp": "other-app", "aud": "other-api"}},
    "okta": {"alice": {}},
    "auth0": {"alice": {}},
}
CODES = {}
SEEN_APPLE_USERS = set()
REFRESH = {}  # auth0: refresh token -> grant
ACCESS = {}  # auth0: opaque access token -> grant (for /userinfo)
AUTH0_UPDATED_AT = "2024-05-01T10:20:30.123Z"


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64d(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign_rs256(header, claims, key_pem):
    signing_input = (b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())).encode()
    r = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key_pem], input=signing_input, capture_output=True, check=True)
    return signing_input.decode() + "." + b64(r.stdout)


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
        path = f.name
    try:
        return subprocess.run(["openssl", "dgst", "-sha256", "-verify", pem, "-signature", path],
                              input=signing_input, capture_output=True).returncode == 0
    finally:
        os.unlink(path)


class Provider:
    def __init__(self, profile, base, keys):
        self.profile, self.base, self.keys = profile, base, keys
        self.key_pem = os.path.join(keys, "rsa2048.pem")

    def issuer_for(self, tenant):
        if self.profile == "entra":
            if tenant in ("common", "organizations"):
                return f"{self.base}/{{tenantid}}/v2.0"
            return f"{self.base}/{CONSUMER if tenant == 'consumers' else tenant}/v2.0"
        return {"keycloak": f"{self.base}/realms/demo", "okta": f"{self.base}/oauth2/default", "auth0": f"{self.base}/"}.get(
            self.profile, self.base)

    def prefix_for(self, tenant):
        if self.profile == "entra":
            return f"/{tenant}"
        return {"keycloak": "/realms/demo", "okta": "/oauth2/default"}.get(self.profile, "")

    def discovery(self, tenant):
        p = self.base + self.prefix_for(tenant)
        entra = self.profile == "entra"
        doc = {"issuer": self.issuer_for(tenant), "authorization_endpoint": p + ("/oauth2/v2.0/authorize" if entra else "/authorize"),
               "token_endpoint": p + ("/oauth2/v2.0/token" if entra else "/token"),
               "jwks_uri": p + ("/discovery/v2.0/keys" if entra else "/keys"), "response_types_supported": ["code"], "subject_types_supported": ["public"],
               "id_token_signing_alg_values_supported": ["RS256"], "code_challenge_methods_supported": ["S256"],
               "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"]}
        if self.profile == "auth0":
            doc["userinfo_endpoint"] = self.base + "/userinfo"
            doc["grant_types_supported"] = ["authorization_code", "refresh_token"]
        if self.profile == "apple":
            doc["token_endpoint_auth_methods_supported"] = ["client_secret_post"]
            doc["response_modes_supported"] = ["query", "fragment", "form_post"]
            doc["subject_types_supported"] = ["pairwise"]
        return doc

    def jwks(self):
        key = json.load(open(os.path.join(self.keys, "rsa2048.pub.jwk")))
        key.update({"kid": "sig-1", "use": "sig", "alg": "RS256"})
        keys = [key]
        if self.profile == "keycloak":  # Keycloak publishes its encryption key next to the signing key
            enc = json.load(open(os.path.join(self.keys, "rsa3072.pub.jwk")))
            enc.update({"kid": "enc-1", "use": "enc", "alg": "RSA-OAEP"})
            keys.insert(0, enc)
        return {"keys": keys}

    def id_token(self, grant, issuer):
        user, props, now = grant["user"], USERS[self.profile][grant["user"]], int(time.time())
        claims = {"iss": issuer, "sub": "sub-" + user.split("@")[0], "aud": grant["client_id"], "iat": now, "exp": now + 600,
                  "email": user}
        if grant.get("nonce"):
            claims["nonce"] = grant["nonce"]
        if self.profile == "entra":
            claims["tid"] = props["tid"]
            claims["ver"] = "2.0"
            claims["iss"] = f"{self.base}/{props.get('iss_tid', props['tid'])}/v2.0"
        elif self.profile == "google":
            if props.get("schemeless"):
                claims["iss"] = issuer.split("://", 1)[1]
            if "hd" in props:
                claims["hd"] = props["hd"]
            claims["email_verified"] = True
        elif self.profile == "apple":
            claims.update({"email_verified": "true", "is_private_email": "true", "auth_time": now, "nonce_supported": True})
        elif self.profile == "keycloak":
            claims.update({"typ": "ID", "azp": grant["client_id"]})
        elif self.profile == "auth0":
            claims["updated_at"] = AUTH0_UPDATED_AT
        return sign_rs256({"alg": "RS256", "typ": "JWT", "kid": "sig-1"}, claims, self.key_pem)

    def access_token(self, grant, issuer):
        now, props = int(time.time()), USERS[self.profile][grant["user"]]
        if self.profile == "keycloak":
            claims = {"iss": issuer, "sub": "sub-" + grant["user"], "typ": "Bearer", "azp": props.get("azp", grant["client_id"]),
                      "aud": props.get("aud", "account"), "iat": now, "exp": now + 300, "jti": secrets.token_hex(8),
                      "scope": "openid email", "preferred_username": grant["user"]}
            return sign_rs256({"alg": "RS256", "typ": "JWT", "kid": "sig-1"}, claims, self.key_pem)
        if self.profile == "entra" and API_SCOPE in grant.get("scope", "").split():
            # A v2.0 access token for your own API: aud its client id, scp, azp, uti, tid (no jti, no client_id).
            tid = props["tid"]
            claims = {"iss": f"{self.base}/{props.get('api_iss_tid', tid)}/v2.0", "aud": API_APP, "sub": "sub-" + grant["user"],
                      "azp": grant["client_id"], "scp": "read", "tid": tid, "uti": secrets.token_hex(8), "ver": "2.0",
                      "iat": now, "nbf": now, "exp": now + 300, "oid": "oid-" + grant["user"]}
            return sign_rs256({"alg": "RS256", "typ": "JWT", "kid": "sig-1"}, claims, self.key_pem)
        if self.profile == "auth0" and grant.get("audience"):
            claims = {"iss": issuer, "sub": "sub-" + grant["user"], "aud": [grant["audience"], self.base + "/userinfo"],
                      "azp": grant["client_id"], "iat": now, "exp": now + 300, "scope": "openid email"}
            return sign_rs256({"alg": "RS256", "typ": "JWT", "kid": "sig-1"}, claims, self.key_pem)
        return "opaque-" + secrets.token_hex(16)

    def check_apple_secret(self, form):
        secret, client_id = form.get("client_secret", ""), form.get("client_id", "")
        parts = secret.split(".")
        if len(parts) != 3:
            return "client_secret is not a JWT"
        try:
            header, claims = json.loads(b64d(parts[0])), json.loads(b64d(parts[1]))
        except Exception:
            return "client_secret is not a JWT"
        now = time.time()
        if header.get("alg") != "ES256" or header.get("kid") != "KEY123ABCD":
            return "header alg/kid"
        if claims.get("iss") != "TEAM123ABC" or claims.get("sub") != client_id or claims.get("aud") != self.base:
            return "iss/sub/aud"
        if not isinstance(claims.get("exp"), int) or not isinstance(claims.get("iat"), int) or claims["exp"] <= now \
                or claims["exp"] - claims["iat"] > 15777000:
            return "exp/iat"
        if not es256_valid((parts[0] + "." + parts[1]).encode(), b64d(parts[2]), os.path.join(self.keys, "p256.pub.pem")):
            return "signature"
        return None


class Handler(http.server.BaseHTTPRequestHandler):
    provider = None

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="application/json", headers=()):
        data = body if isinstance(body, bytes) else (json.dumps(body) if not isinstance(body, str) else body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def route(self):
        """(tenant, rest of the path) under the profile's prefix, or None."""
        path, p = urllib.parse.urlsplit(self.path).path, self.provider
        if p.profile == "entra":
            parts = path.split("/", 2)
            return (parts[1], "/" + parts[2]) if len(parts) == 3 else (None, path)
        prefix = p.prefix_for(None)
        return (None, path[len(prefix):]) if path.startswith(prefix) else (None, path)

    def do_GET(self):
        p, (tenant, rest) = self.provider, self.route()
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
        if rest in ("/v2.0/.well-known/openid-configuration", "/.well-known/openid-configuration"):
            return self.send(200, p.discovery(tenant))
        if rest == "/keys" or rest == "/discovery/v2.0/keys":
            return self.send(200, p.jwks())
        if rest == "/graph-token":  # what Entra issues for Microsoft Graph: a nonce in the header
            now = int(time.time())
            return self.send(200, {"access_token": sign_rs256(
                {"alg": "RS256", "typ": "JWT", "kid": "sig-1", "nonce": secrets.token_urlsafe(16)},
                {"iss": f"{p.base}/{CONTOSO}/v2.0", "aud": "00000003-0000-0000-c000-000000000000", "sub": "x", "iat": now,
                 "exp": now + 300, "tid": CONTOSO}, p.key_pem)})
        if rest == "/userinfo" and p.profile == "auth0":
            auth = self.headers.get("Authorization", "")
            grant = ACCESS.get(auth[7:]) if auth.startswith("Bearer ") else None
            if grant is None:
                return self.send(401, b"", "text/plain", [("WWW-Authenticate", 'Bearer error="invalid_token"')])
            user = grant["user"]
            return self.send(200, {"sub": "sub-" + user, "email": user, "name": user.capitalize(), "updated_at": AUTH0_UPDATED_AT})
        if rest in ("/authorize", "/oauth2/v2.0/authorize"):
            user = query.get("login_hint", "")
            if user not in USERS[p.profile] or query.get("client_id") != "app" or query.get("code_challenge_method") != "S256":
                return self.send(400, {"error": "invalid_request"})
            code = secrets.token_urlsafe(16)
            CODES[code] = {"user": user, "client_id": query["client_id"], "redirect_uri": query.get("redirect_uri"),
                           "nonce": query.get("nonce"), "challenge": query.get("code_challenge"), "tenant": tenant,
                           "audience": query.get("audience"), "scope": query.get("scope", "")}
            answer = {"code": code, "state": query.get("state", "")}
            if p.profile == "apple":
                if query.get("response_mode") != "form_post":
                    return self.send(400, {"error": "invalid_request", "error_description": "response_mode must be form_post"})
                if user not in SEEN_APPLE_USERS:
                    SEEN_APPLE_USERS.add(user)
                    answer["user"] = json.dumps({"name": {"firstName": "Alice", "lastName": "Appleseed"}, "email": user})
                fields = "".join(f'<input type="hidden" name="{k}" value="{v.replace(chr(34), "&quot;")}"/>' for k, v in answer.items())
                return self.send(200, f'<html><body onload="document.forms[0].submit()"><form method="post" '
                                      f'action="{query["redirect_uri"]}">{fields}</form></body></html>', "text/html")
            location = query["redirect_uri"] + "?" + urllib.parse.urlencode(answer)
            return self.send(302, b"", "text/plain", [("Location", location)])
        self.send(404, {"error": "not_found"})

    def do_POST(self):
        p, (tenant, rest) = self.provider, self.route()
        length = int(self.headers.get("Content-Length", "0"))
        form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
        if rest not in ("/token", "/oauth2/v2.0/token"):
            return self.send(404, {"error": "not_found"})
        if p.profile == "apple":
            if "Authorization" in self.headers:
                return self.send(401, {"error": "invalid_client"})
            problem = p.check_apple_secret(form)
            if problem:
                return self.send(400, {"error": "invalid_client", "error_description": problem})
            client = form.get("client_id")
        else:
            auth = self.headers.get("Authorization", "")
            if auth.startswith("Basic "):
                client, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
            else:
                client, secret = form.get("client_id"), form.get("client_secret")
            if client != "app" or secret != "app-secret":
                return self.send(401, {"error": "invalid_client"})
        if p.profile == "auth0" and form.get("grant_type") == "refresh_token":
            grant = REFRESH.pop(form.get("refresh_token", ""), None)
            if grant is None or grant["client_id"] != client:
                return self.send(403, {"error": "invalid_grant"})
            return self.tokens(p, dict(grant, nonce=None), p.issuer_for(grant["tenant"]))
        grant = CODES.pop(form.get("code", ""), None)
        if form.get("grant_type") != "authorization_code" or grant is None or grant["client_id"] != client \
                or grant["redirect_uri"] != form.get("redirect_uri"):
            return self.send(400, {"error": "invalid_grant"})
        verifier = form.get("code_verifier", "")
        if b64(hashlib.sha256(verifier.encode()).digest()) != grant["challenge"]:
            return self.send(400, {"error": "invalid_grant", "error_description": "PKCE"})
        self.tokens(p, grant, p.issuer_for(grant["tenant"]))

    def tokens(self, p, grant, issuer):
        answer = {"access_token": p.access_token(grant, issuer), "token_type": "Bearer", "expires_in": 300,
                  "id_token": p.id_token(grant, issuer)}
        if p.profile == "auth0":
            ACCESS[answer["access_token"]] = grant
            if "offline_access" in grant.get("scope", "").split():
                answer["refresh_token"] = "rt-" + secrets.token_urlsafe(16)  # rotated on every use, as Auth0 can
                REFRESH[answer["refresh_token"]] = grant
        self.send(200, answer, headers=[("Cache-Control", "no-store")])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--profile", required=True, choices=sorted(USERS))
    parser.add_argument("--keys", required=True)
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    port = server.server_address[1]
    Handler.provider = Provider(args.profile, f"http://127.0.0.1:{port}", args.keys)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(port, flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
