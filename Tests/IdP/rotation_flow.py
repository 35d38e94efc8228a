#!/usr/bin/env python3
"""Key rotation / expiry checks, driven by rotation-smoke.sh (stdlib only).

    python3 rotation_flow.py phase1 ISSUER STATEFILE   # before the restart
    python3 rotation_flow.py phase2 ISSUER STATEFILE   # after restart with new key
"""

import json
import sys
import time

from smoke_lib import (SmokeFailure, check, exchange, http, jwt_parts, login_for_code, refresh,
                       rs256_verify, verify_id_token)


def observed(what, value):
    print(f"OBSERVED {what}: {value}")


def tokens(disco, jwks, issuer):
    code, verifier, nonce = login_for_code(disco, "client-basic")
    r = exchange(disco, "client-basic", code, verifier, auth="basic")
    check(r.status == 200, f"token exchange 200: {r.describe()}")
    tok = r.json()
    header, _ = verify_id_token(tok["id_token"], jwks, issuer, "client-basic", nonce)
    return tok, header


def phase1(issuer, state_file):
    disco = http("GET", issuer + "/.well-known/openid-configuration").json()
    jwks = http("GET", disco["jwks_uri"]).json()
    check(len(jwks["keys"]) == 1, "one key in the JWKS before rotation")
    tok, header = tokens(disco, jwks, issuer)
    with open(state_file, "w") as f:
        json.dump({"kid": header["kid"], "tok": tok}, f)
    observed("kid before rotation", header["kid"])


def phase2(issuer, state_file):
    with open(state_file) as f:
        st = json.load(f)
    disco = http("GET", issuer + "/.well-known/openid-configuration").json()
    r = http("GET", disco["jwks_uri"])
    jwks = r.json()
    observed("JWKS after rotation", json.dumps([{k: v for k, v in key.items() if k != "n"} for key in jwks["keys"]]))
    kids = [k["kid"] for k in jwks["keys"]]
    check(len(kids) == 2, "JWKS publishes two keys (active + inactive)")
    check(st["kid"] in kids, "old kid still published")
    check(kids[0] != st["kid"], "active (first) key is the new one")
    tok, header = tokens(disco, jwks, issuer)
    check(header["kid"] != st["kid"] and header["kid"] == kids[0], f"new ID token carries the new kid {header['kid']}")
    h, _, si, sig = jwt_parts(st["tok"]["id_token"])
    key = {k["kid"]: k for k in jwks["keys"]}[h["kid"]]
    check(rs256_verify(key, si, sig), "pre-rotation ID token still verifies against the published old key")

    r = http("GET", disco["userinfo_endpoint"], bearer=st["tok"]["access_token"])
    observed("pre-restart access token (3600 s) at userinfo after restart", f"HTTP {r.status}")
    check(tok["expires_in"] <= 2, f"IDP_ACCESS_TOKEN_SECONDS=2 honoured (expires_in={tok['expires_in']})")
    r = http("GET", disco["userinfo_endpoint"], bearer=tok["access_token"])
    check(r.status == 200, "fresh short-lived access token works")
    time.sleep(3)
    r = http("GET", disco["userinfo_endpoint"], bearer=tok["access_token"])
    observed("userinfo with expired access token", r.describe())
    check(r.status == 401 and "WWW-Authenticate" in r.headers, "expired access token -> 401 with WWW-Authenticate")
    r = http("POST", issuer + "/introspect/", form={"token": tok["access_token"]},
             basic=("client-basic", "secret-basic"))
    observed("introspection of expired access token", r.describe())
    r = refresh(disco, "client-basic", tok["refresh_token"], "basic")
    check(r.status == 200, "refresh after access-token expiry works")
    _, c2 = jwt_parts(r.json()["id_token"])[:2]
    h2 = jwt_parts(r.json()["id_token"])[0]
    check(h2["kid"] == kids[0], "ID token from refresh carries the new kid")


if __name__ == "__main__":
    try:
        {"phase1": phase1, "phase2": phase2}[sys.argv[1]](sys.argv[2].rstrip("/"), sys.argv[3])
    except SmokeFailure as e:
        print(f"ROTATION SMOKE FAILED: {e}", file=sys.stderr)
        sys.exit(1)
