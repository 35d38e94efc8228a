#!/usr/bin/env python3
"""End-to-end smoke flow against a running test IdP (stdlib only).

    python3 smoke_flow.py ISSUER
Prints each step and the observed behaviour; exits 1 on the first failed check.
"""

import json
import sys
import time

from smoke_lib import (SmokeFailure, authorize_url, check, exchange, http, jwt_parts, login_for_code,
                       pkce, refresh, revoke, run_login, verify_id_token)

CLAIMS_REQUEST = {
    "userinfo": {"email": {"essential": True}, "given_name": None},
    "id_token": {"email": {"essential": True}, "family_name": None},
}


def observed(what, value):
    print(f"OBSERVED {what}: {value}")


def main(issuer):
    print("== discovery")
    t0 = time.monotonic()
    r = http("GET", issuer + "/.well-known/openid-configuration")
    check(r.status == 200, "discovery answers 200")
    disco = r.json()
    check(disco["issuer"] == issuer, f"issuer is {issuer}")
    observed("discovery Content-Type", r.ctype)
    for k in ("issuer", "token_endpoint_auth_methods_supported", "id_token_signing_alg_values_supported",
              "code_challenge_methods_supported", "claims_supported", "scopes_supported",
              "response_types_supported"):
        observed(k, json.dumps(disco.get(k)))
    observed("discovery advertises revocation/introspection endpoints",
             {k: disco.get(k) for k in ("revocation_endpoint", "introspection_endpoint")})
    r8414 = http("GET", issuer + "/.well-known/oauth-authorization-server")
    if r8414.status == 200:
        m = r8414.json()
        observed("RFC 8414 metadata (/o/.well-known/oauth-authorization-server)",
                 {k: m.get(k) for k in ("issuer", "revocation_endpoint", "introspection_endpoint")})

    print("== JWKS")
    r = http("GET", disco["jwks_uri"])
    check(r.status == 200, "JWKS answers 200")
    jwks = r.json()
    check(len(jwks["keys"]) >= 1, "JWKS has at least one key")
    observed("JWKS", r.describe())

    print("== authorization code + PKCE S256 + state + nonce + claims, client_secret_basic (client-basic)")
    code, verifier, nonce = login_for_code(disco, "client-basic", claims=CLAIMS_REQUEST)
    r = exchange(disco, "client-basic", code, verifier, auth="basic")
    check(r.status == 200, f"token exchange (basic) 200: {r.describe()}")
    observed("token response Content-Type / Cache-Control", f"{r.ctype} / {r.headers.get('Cache-Control')}")
    tok_b = r.json()
    observed("token response keys", sorted(tok_b))
    check("id_token" in tok_b, "id_token returned")
    header, claims = verify_id_token(tok_b["id_token"], jwks, issuer, "client-basic", nonce)
    observed("id_token header", header)
    observed("id_token claims", sorted(claims))
    check(claims.get("email") == "alice@example.com" and claims.get("name") == "Alice Liddell",
          "id_token carries email and name")

    print("== reused authorization code")
    r = exchange(disco, "client-basic", code, verifier, auth="basic")
    observed("reused code", r.describe())
    check(r.status == 400 and r.json().get("error") == "invalid_grant", "reused code -> 400 invalid_grant")

    print("== userinfo")
    r = http("GET", disco["userinfo_endpoint"], bearer=tok_b["access_token"])
    check(r.status == 200, f"userinfo 200: {r.describe()}")
    observed("userinfo", r.describe())
    ui = r.json()
    for c in ("sub", "email", "email_verified", "name", "given_name", "family_name"):
        check(c in ui, f"userinfo has {c}")
    check(ui["sub"] == claims["sub"], "userinfo sub == id_token sub")

    print("== introspection (client credentials via Basic)")
    r = http("POST", issuer + "/introspect/", form={"token": tok_b["access_token"]},
             basic=("client-basic", "secret-basic"))
    observed("introspection of live access token", r.describe())
    check(r.status == 200 and r.json().get("active") is True, "introspection says active")

    print("== refresh (client-basic) and rotation")
    r = refresh(disco, "client-basic", tok_b["refresh_token"], "basic")
    check(r.status == 200, f"refresh 200: {r.describe()}")
    tok_b2 = r.json()
    observed("refresh response keys", sorted(tok_b2))
    check(tok_b2["refresh_token"] != tok_b["refresh_token"], "refresh token rotated (new value)")
    if "id_token" in tok_b2:
        verify_id_token(tok_b2["id_token"], jwks, issuer, "client-basic")
    r = refresh(disco, "client-basic", tok_b["refresh_token"], "basic")
    observed("old (rotated-out) refresh token", r.describe())
    check(r.status == 400 and r.json().get("error") == "invalid_grant", "old refresh token -> invalid_grant")
    r = refresh(disco, "client-basic", tok_b2["refresh_token"], "basic")
    observed("new refresh token after the old one was replayed (REFRESH_TOKEN_REUSE_PROTECTION)", r.describe())

    print("== authorization code, client_secret_post (client-post); refresh; revoke")
    code, verifier, nonce = login_for_code(disco, "client-post", claims=CLAIMS_REQUEST)
    r = exchange(disco, "client-post", code, verifier, auth="post")
    check(r.status == 200, f"token exchange (post) 200: {r.describe()}")
    tok_p = r.json()
    check("id_token" in tok_p, "id_token returned")
    verify_id_token(tok_p["id_token"], jwks, issuer, "client-post", nonce)
    r = refresh(disco, "client-post", tok_p["refresh_token"], "post")
    check(r.status == 200, f"refresh (post) 200: {r.describe()}")
    tok_p2 = r.json()
    r = refresh(disco, "client-post", tok_p["refresh_token"], "post")
    check(r.status == 400 and r.json().get("error") == "invalid_grant", "old refresh token -> invalid_grant")
    # The replay above revokes the family when reuse protection is on; get a fresh pair for the revocation test.
    code, verifier, _ = login_for_code(disco, "client-post")
    tok_p3 = exchange(disco, "client-post", code, verifier, auth="post").json()
    r = refresh(disco, "client-post", tok_p3["refresh_token"], "post")
    check(r.status == 200, "refresh of a fresh refresh token 200")
    tok_p4 = r.json()
    r = revoke(disco, "client-post", tok_p4["refresh_token"], "refresh_token", "post")
    observed("revoke refresh token", r.describe())
    check(r.status == 200, "revocation 200")
    r = refresh(disco, "client-post", tok_p4["refresh_token"], "post")
    observed("refresh with revoked refresh token", r.describe())
    check(r.status == 400 and r.json().get("error") == "invalid_grant", "revoked refresh token -> invalid_grant")
    r = http("GET", disco["userinfo_endpoint"], bearer=tok_p4["access_token"])
    observed("userinfo with the access token paired with the revoked refresh token", r.describe())

    print("== revoked access token at userinfo")
    r = revoke(disco, "client-basic", tok_b2["access_token"], "access_token", "basic")
    check(r.status == 200, "access token revocation 200")
    r = http("GET", disco["userinfo_endpoint"], bearer=tok_b2["access_token"])
    observed("userinfo with revoked access token", r.describe())
    check(r.status == 401 and "WWW-Authenticate" in r.headers, "revoked access token -> 401 with WWW-Authenticate")
    r = http("POST", issuer + "/introspect/", form={"token": tok_b2["access_token"]},
             basic=("client-basic", "secret-basic"))
    observed("introspection of revoked access token", r.describe())
    r = http("GET", disco["userinfo_endpoint"])
    observed("userinfo without any token", r.describe())
    r = http("GET", disco["userinfo_endpoint"], bearer="garbage")
    observed("userinfo with unknown token", r.describe())

    print("== error cases")
    code, verifier, _ = login_for_code(disco, "client-basic")
    r = exchange(disco, "client-basic", code, pkce()[0], auth="basic")
    observed("wrong PKCE verifier", r.describe())
    check(r.status == 400 and r.json().get("error") == "invalid_grant", "wrong verifier -> 400 invalid_grant")

    code, verifier, _ = login_for_code(disco, "client-basic")
    r = exchange(disco, "client-basic", code, None, auth="basic")
    observed("missing PKCE verifier", r.describe())
    check(r.status == 400 and r.json().get("error") == "invalid_request", "missing verifier -> 400 invalid_request")

    code, verifier, _ = login_for_code(disco, "client-basic")
    r = exchange(disco, "client-basic", code, verifier, auth="basic", secret="wrong-secret")
    observed("wrong client secret (client_secret_basic)", r.describe())
    check(r.status == 401 and r.json().get("error") == "invalid_client", "wrong secret (basic) -> 401 invalid_client")
    r = exchange(disco, "client-basic", code, verifier, auth="basic")
    observed("same code after a failed client authentication", r.describe())
    code, verifier, _ = login_for_code(disco, "client-post")
    r = exchange(disco, "client-post", code, verifier, auth="post", secret="wrong-secret")
    observed("wrong client secret (client_secret_post)", r.describe())
    check(r.json().get("error") == "invalid_client", "wrong secret (post) -> invalid_client")

    url = authorize_url(disco, "client-basic", state="s1", nonce="n1")  # no code_challenge
    rc, out, err = run_login(url)
    observed("authorize without code_challenge (login.py rc, redirect)", f"rc={rc} {out} {err}")
    check(rc == 3 and "error=invalid_request" in out, "missing code_challenge -> error redirect invalid_request")

    _, challenge = pkce()
    url = authorize_url(disco, "client-basic", challenge=challenge, state="s2", nonce="n2", claims="{not json")
    rc, out, err = run_login(url)
    observed("authorize with malformed claims JSON (login.py rc, output)", " ".join(f"rc={rc} {out} {err}".split())[:400])

    print("== claims parameter honoured? (scope openid only, claims asks for email)")
    code, verifier, nonce = login_for_code(disco, "client-public", scope="openid", claims=CLAIMS_REQUEST)
    r = exchange(disco, "client-public", code, verifier, auth="none")
    check(r.status == 200, f"public client token exchange (no secret, PKCE) 200: {r.describe()}")
    tok_pub = r.json()
    _, c = jwt_parts(tok_pub["id_token"])[:2]
    ui = http("GET", disco["userinfo_endpoint"], bearer=tok_pub["access_token"]).json()
    observed("claims param with scope=openid -> id_token claims", sorted(c))
    observed("claims param with scope=openid -> userinfo", ui)
    observed("claims parameter honoured", "email" in c or "email" in ui)
    observed("public client token response keys", sorted(tok_pub))

    print(f"smoke flow done in {time.monotonic() - t0:.1f}s")


if __name__ == "__main__":
    try:
        main(sys.argv[1].rstrip("/"))
    except SmokeFailure as e:
        print(f"SMOKE FAILED: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # noqa: BLE001
        print(f"SMOKE FAILED with {type(e).__name__}: {e}", file=sys.stderr)
        raise
