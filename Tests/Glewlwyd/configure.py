"""Configure a fresh glewlwyd through its admin REST API (stdlib only); used by start.sh.

    python3 configure.py --base http://127.0.0.1:PORT --run RUN_DIR --pid PID [--timeout 30]
                         [--access-token-seconds 3600]

Waits until BASE/config answers, logs in as admin/password (made by the init SQL), then
creates: the scopes api.read and api.write; the OIDC plugin "oidc" (issuer BASE/api/oidc)
with the RS256, ES256 and EdDSA keys of RUN_DIR/keys (RS256 the default, a client's
`sign_kid` property picks another); a second OIDC plugin "mcp" (issuer BASE/api/mcp, the
same keys and switches) with open dynamic registration for MCP clients (mcp_plugin_parameters);
the user alice/password; and the clients below (clients belong to glewlwyd, not to a plugin:
each works at both issuers).
Prints KEY=VALUE lines (shell-safe values) on stdout.
"""

import argparse
import json
import os
import secrets
import sys
import time
import urllib.error
import urllib.request
from http.cookiejar import CookieJar

RESOURCE = "https://rs.glewlwyd.test/api"
REDIRECT = "http://127.0.0.1:9451/callback"
# The protected resources the "mcp" plugin grants with api.read / api.write (RFC 8707 `resource`, its resource-scope
# mapping), so a client that registered itself there may ask for them: the app tests' MCP endpoints (hummingbird-app
# on HBAPP_PORT_BASE 8460 + 20, their Python-SDK MCP server on + 21) and the protected resource of
# GlewlwydProtectedResourceAccessTests (Tests/Support/grant_server.py on 9458). GLEWLWYD_MCP_RESOURCES (comma-separated)
# replaces the list, e.g. for tests on other ports.
MCP_RESOURCES = ["http://127.0.0.1:8480/mcp", "http://127.0.0.1:8481/mcp", "http://127.0.0.1:9458/api"]


class Admin:
    def __init__(self, base: str):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))

    def call(self, method: str, path: str, body=None, ok=(200,)):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with self.opener.open(req, timeout=10) as r:
                status, text = r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode(errors="replace")
        if status not in ok:
            raise SystemExit(f"configure.py: {method} {path} -> {status} {text[:500]}")
        return json.loads(text) if text.strip() else None


def wait_ready(base: str, pid: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            raise SystemExit(f"configure.py: glewlwyd (pid {pid}) exited")
        try:
            with urllib.request.urlopen(base + "/config", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    raise SystemExit(f"configure.py: {base}/config did not answer within {timeout:g}s")


def plugin_parameters(issuer: str, jwks_private: str, access_seconds: int) -> dict:
    return {
        "iss": issuer,
        "jwks-private": jwks_private, "default-kid": "rs256-1", "jwks-show": True,
        "client-sign_kid-parameter": "sign_kid",
        "access-token-duration": access_seconds, "refresh-token-duration": 1209600,
        "code-duration": 600, "refresh-token-rolling": True, "refresh-token-one-use": "never",
        "allow-non-oidc": True,
        "auth-type-code-enabled": True, "auth-type-token-enabled": False,
        "auth-type-id-token-enabled": True, "auth-type-none-enabled": False,
        "auth-type-password-enabled": False, "auth-type-client-enabled": True,
        "auth-type-device-enabled": True, "auth-type-refresh-enabled": True,
        "device-authorization-expiration": 600, "device-authorization-interval": 5,
        "scope": [], "additional-parameters": [], "claims": [],
        "name-claim": "on-demand", "name-claim-scope": [],
        "email-claim": "on-demand", "email-claim-scope": [],
        "scope-claim": "no", "scope-claim-scope": [],
        "address-claim": {"type": "no"},
        "allowed-scope": ["openid", "api.read", "api.write"],
        "secret-type": "pairwise",
        "pkce-allowed": True, "pkce-method-plain-allowed": False, "pkce-required": False,
        "pkce-required-public-client": True, "pkce-scopes": [],
        "introspection-revocation-allowed": True, "introspection-revocation-auth-scope": [],
        "introspection-revocation-allow-target-client": True,
        # Dynamic registration (RFC 7591) with an initial access token: an access token carrying the
        # client.register scope (client credentials of the SECRET client); RFC 7592 management on.
        "register-client-allowed": True, "register-client-auth-scope": ["client.register"],
        "register-client-credentials-scope": [], "register-client-management-allowed": True,
        "register-client-token-one-use": False, "register-default-properties": [],
        "session-management-allowed": True, "session-cookie-name": "GLEWLWYD2_OIDC_SID",
        "session-cookie-expiration": 2419200,
        "front-channel-logout-allowed": True, "back-channel-logout-allowed": True,
        "request-parameter-allow": True, "request-uri-allow-https-non-secure": False,
        "request-parameter-allow-encrypted": False, "request-maximum-exp": 3600,
        "client-pubkey-parameter": "pubkey", "client-jwks-parameter": "jwks",
        "client-jwks_uri-parameter": "jwks_uri",
        # Out-token encryption, for the clients that set the `alg` property (ENC): to their `pubkey` PEM.
        "encrypt-out-token-allow": True,
        "client-alg-parameter": "alg", "client-enc-parameter": "enc", "client-alg_kid-parameter": "alg_kid",
        "client-encrypt_code-parameter": "encrypt_code", "client-encrypt_at-parameter": "encrypt_at",
        "client-encrypt_id_token-parameter": "encrypt_id_token", "client-encrypt_userinfo-parameter": "encrypt_userinfo",
        "client-encrypt_refresh_token-parameter": "encrypt_refresh_token",
        "client-encrypt_introspection-parameter": "encrypt_introspection",
        "oauth-as-iss-id": True,
        "oauth-dpop-allowed": True, "oauth-dpop-iat-duration": 30,
        "oauth-dpop-dpop_bound_access_tokens-property": "dpop_bound_access_tokens",
        "oauth-dpop-nonce-mandatory": os.environ.get("GLEWLWYD_DPOP_NONCE", "1") == "1",
        "oauth-dpop-nonce-counter": 5,
        "resource-allowed": True,
        "resource-scope": {"api.read": [RESOURCE], "api.write": [RESOURCE]},
        "resource-client-property": "resource", "resource-scope-and-client-property": False,
        # RFC 9396 (RAR draft 11): unsigned authorization_details on the URL, one type for the RAR client.
        "oauth-rar-allowed": True, "rar-types-client-property": "authorization_details_types",
        "rar-allow-auth-unsigned": True, "rar-allow-auth-unencrypted": True,
        "rar-types": {"payment_initiation": {
            "scopes": ["api.read"], "description": "Initiate a payment", "locations": ["https://api.example.test/payments"],
            "actions": ["initiate", "status"], "datatypes": [], "enriched": [], "privileges": []}},
        "oauth-par-allowed": True, "oauth-par-duration": 90, "oauth-par-required": False,
        "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:",
        "oauth-ciba-allowed": True, "oauth-ciba-default-expiry": 600,
        "oauth-ciba-maximum-expiry": 1200, "oauth-ciba-mode-poll-allowed": True,
        "oauth-ciba-mode-ping-allowed": False, "oauth-ciba-mode-push-allowed": False,
        "oauth-ciba-allow-https-non-secure": True, "oauth-ciba-user-code-allowed": False,
        "oauth-ciba-email-allowed": False,
        "oauth-fapi-allow-restrict-alg": False,
    }


def mcp_plugin_parameters(parameters: dict, issuer: str, resources: list) -> dict:
    """The second OIDC plugin, "mcp": the first one's switches, but OPEN dynamic registration (RFC 7591) as MCP
    clients expect it. In glewlwyd 2.7.5 an empty register-client-auth-scope means /register asks for no initial access
    token (callback_check_registration continues when no scope is configured). A registered client's `scope` property
    (the scopes its client-credentials grant may carry) is register-client-credentials-scope, whatever the registration
    asked for: api.read here. A registration's `resource` is dropped (register-resource-specify-allowed off), so the
    `resource` a registered client may ask for comes from resource-scope: the listed MCP resources, with api.read or
    api.write. The first plugin ("oidc") keeps its initial-access-token rule."""
    mcp = dict(parameters)
    mcp.update({
        "iss": issuer,
        "register-client-allowed": True, "register-client-auth-scope": [],
        "register-client-credentials-scope": ["api.read"], "register-client-management-allowed": True,
        "register-resource-specify-allowed": False, "register-resource-default": [],
        "resource-scope": {"api.read": [RESOURCE] + resources, "api.write": [RESOURCE] + resources},
        "session-cookie-name": "GLEWLWYD2_MCP_SID",
    })
    return mcp


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--access-token-seconds", type=int, default=3600)
    ap.add_argument("--logout-uri", default="http://127.0.0.1:9452/backchannel-logout",
                    help="the back-channel logout URI of the LOGOUT client (logout.py listens there)")
    ap.add_argument("--tls-dir", help="served over TLS with these test certificates (tls-certificates.sh): "
                    "mTLS on, the MTLS client added, every printed name prefixed GLEWLWYD_TLS_")
    a = ap.parse_args()
    base = a.base.rstrip("/")
    issuer = base + "/api/oidc"
    wait_ready(base, a.pid, a.timeout)

    admin = Admin(base)
    admin.call("POST", "/api/auth/", {"username": "admin", "password": "password"})

    # Client properties the plugin reads must be declared in the client module's data-format.
    mod = admin.call("GET", "/api/mod/client/database")
    fmt = mod["parameters"]["data-format"]
    for prop in ("sign_kid", "dpop_bound_access_tokens", "alg", "enc", "alg_kid", "encrypt_code", "encrypt_at",
                 "encrypt_id_token", "encrypt_userinfo", "encrypt_refresh_token", "encrypt_introspection") \
            + (("tls_client_auth_san_dns",) if a.tls_dir else ()):
        fmt.setdefault(prop, {"multiple": False, "read": True, "write": True})
    fmt.setdefault("authorization_details_types", {"multiple": True, "read": True, "write": True})
    admin.call("PUT", "/api/mod/client/database", mod)
    admin.call("PUT", "/api/mod/client/database/reset")

    for name, desc in (("api.read", "Read the test API"), ("api.write", "Write the test API")):
        admin.call("POST", "/api/scope/", {"name": name, "display_name": name, "description": desc,
                                          "password_required": True, "password_max_age": 0,
                                          "scheme": {}})
    admin.call("POST", "/api/scope/", {"name": "client.register", "display_name": "client.register",
                                      "description": "Register clients (the initial access token's scope)",
                                      "password_required": False, "password_max_age": 0, "scheme": {}})

    jwks_private = open(os.path.join(a.run, "keys", "jwks-private.json")).read()
    parameters = plugin_parameters(issuer, jwks_private, a.access_token_seconds)
    if a.tls_dir:
        # RFC 8705: client certificates from the TLS session only (never a header), aliases under /mtls/.
        parameters.update({"client-cert-source": "TLS", "client-cert-use-endpoint-aliases": True,
                           "client-cert-self-signed-allowed": False})
    admin.call("POST", "/api/mod/plugin/", {
        "module": "oidc", "name": "oidc", "display_name": "OpenID Connect", "enabled": True,
        "parameters": parameters})
    mcp_resources = [r for r in os.environ.get("GLEWLWYD_MCP_RESOURCES", ",".join(MCP_RESOURCES)).split(",") if r]
    admin.call("POST", "/api/mod/plugin/", {
        "module": "oidc", "name": "mcp", "display_name": "OpenID Connect, open registration (MCP clients)",
        "enabled": True, "parameters": mcp_plugin_parameters(parameters, base + "/api/mcp", mcp_resources)})
    if a.tls_dir:
        # The discovery document lists mtls_endpoint_aliases only after a reset of the plugin.
        admin.call("PUT", "/api/mod/plugin/oidc/reset")
        admin.call("PUT", "/api/mod/plugin/mcp/reset")

    admin.call("POST", "/api/user/", {"username": "alice", "password": "password", "name": "Alice Example",
                                      "email": "alice@example.test", "enabled": True,
                                      "scope": ["openid", "api.read", "api.write", "g_profile"]})

    env = {"GLEWLWYD_ISSUER": issuer, "GLEWLWYD_BASE": base, "GLEWLWYD_RESOURCE": RESOURCE,
           "GLEWLWYD_REDIRECT_URI": REDIRECT, "GLEWLWYD_JWKS_FILE": os.path.join(a.run, "keys", "jwks.json"),
           "GLEWLWYD_MCP_ISSUER": base + "/api/mcp", "GLEWLWYD_MCP_RESOURCES": ",".join(mcp_resources)}

    def client(prefix: str, client_id: str, auth_types, extra=None, confidential=True):
        secret = secrets.token_urlsafe(24)
        body = {"client_id": client_id, "name": client_id, "enabled": True, "confidential": confidential,
                "redirect_uri": [REDIRECT], "authorization_type": list(auth_types),
                "scope": ["openid", "api.read", "api.write"],
                "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"],
                "resource": [RESOURCE]}
        if confidential:
            body["password"] = secret
        body.update(extra or {})
        admin.call("POST", "/api/client/", body)
        env[f"GLEWLWYD_{prefix}_CLIENT_ID"] = client_id
        if confidential and "password" in body:
            env[f"GLEWLWYD_{prefix}_CLIENT_SECRET"] = body["password"]

    # Code flow + client credentials + refresh with a client secret; tokens signed RS256.
    client("SECRET", "svc-secret", ["code", "client_credentials", "refresh_token"],
           {"scope": ["openid", "api.read", "api.write", "client.register"]})
    # The same grants, tokens signed with ES256 and with EdDSA (the client's sign_kid).
    client("ES256", "svc-es256", ["code", "client_credentials", "refresh_token"], {"sign_kid": "es256-1"})
    client("EDDSA", "svc-eddsa", ["code", "client_credentials", "refresh_token"], {"sign_kid": "eddsa-1"})
    # private_key_jwt with an ES256 key (PEM in the `pubkey` property): PAR, DPoP, code flow.
    pkjwt_pem = os.path.join(a.run, "keys", "client-es256.pem")
    import subprocess
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-out", pkjwt_pem], check=True, capture_output=True)
    pub_pem = subprocess.run(["openssl", "pkey", "-in", pkjwt_pem, "-pubout"], check=True,
                             capture_output=True, text=True).stdout
    client("PKJWT", "fapi-pkjwt", ["code", "client_credentials", "refresh_token"],
           {"token_endpoint_auth_method": ["private_key_jwt"], "pubkey": pub_pem,
            "token_endpoint_signing_alg": "ES256", "sign_kid": "es256-1"})  # FAPI 2.0: ID Tokens in ES256
    env.pop("GLEWLWYD_PKJWT_CLIENT_SECRET", None)  # it authenticates with its key only
    env["GLEWLWYD_PKJWT_KEY_FILE"] = pkjwt_pem
    # CIBA poll.
    client("CIBA", "ciba-poll", ["urn:openid:params:grant-type:ciba", "refresh_token"],
           {"backchannel_token_delivery_mode": "poll"})
    # Back-channel logout: glewlwyd POSTs a logout token to this URI when the user's session ends.
    client("LOGOUT", "rp-logout", ["code"], {"backchannel_logout_uri": a.logout_uri})
    env["GLEWLWYD_LOGOUT_URI"] = a.logout_uri
    # RFC 9396: may ask for authorization_details of type payment_initiation.
    client("RAR", "rar-client", ["code", "refresh_token"], {"authorization_details_types": ["payment_initiation"]})
    # Encrypted ID Tokens and UserInfo (RSA-OAEP-256 + A256GCM) to the RSA key in `pubkey`; the private
    # key is in GLEWLWYD_ENC_KEY_FILE (PEM, no kid: glewlwyd names the key by its RFC 7638 thumbprint).
    enc_pem = os.path.join(a.run, "keys", "client-enc-rsa.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", enc_pem],
                   check=True, capture_output=True)
    enc_pub = subprocess.run(["openssl", "pkey", "-in", enc_pem, "-pubout"], check=True, capture_output=True, text=True).stdout
    client("ENC", "rp-enc", ["code", "refresh_token"],
           {"pubkey": enc_pub, "alg": "RSA-OAEP-256", "enc": "A256GCM", "encrypt_id_token": "1", "encrypt_userinfo": "1"})
    env["GLEWLWYD_ENC_KEY_FILE"] = enc_pem
    # Device authorization grant.
    client("DEVICE", "device-client", ["device_authorization", "refresh_token"])

    if a.tls_dir:
        # tls_client_auth: no secret; glewlwyd matches the client by its certificate's SAN DNS name.
        client("MTLS", "mtls-client", ["code", "client_credentials", "refresh_token"],
               {"token_endpoint_auth_method": ["tls_client_auth"], "tls_client_auth_san_dns": "mtls-client.test"})
        env.pop("GLEWLWYD_MTLS_CLIENT_SECRET", None)
        env.update({"GLEWLWYD_CA_FILE": os.path.join(a.tls_dir, "ca.pem"),
                    "GLEWLWYD_MTLS_CLIENT_CERT": os.path.join(a.tls_dir, "client.pem"),
                    "GLEWLWYD_MTLS_CLIENT_KEY": os.path.join(a.tls_dir, "client.key"),
                    "GLEWLWYD_MTLS_OTHER_CERT": os.path.join(a.tls_dir, "other.pem"),
                    "GLEWLWYD_MTLS_OTHER_KEY": os.path.join(a.tls_dir, "other.key")})
        env = {"GLEWLWYD_TLS_" + k[len("GLEWLWYD_"):]: v for k, v in env.items()}

    for k, v in env.items():
        print(f"{k}={v}")


if __name__ == "__main__":
    main()
