#!/usr/bin/env python3
"""Produce interop_tokens.json: ID tokens signed by an independent JOSE
implementation (joserfc, pinned in requirements.txt) with every JWS algorithm
this toolkit supports, using the PUBLIC TEST KEYS in the repository's Keys/.

JOSETests/PythonInteropTests.swift verifies every token with the Swift JOSE
library, so CI needs no Python: the output is committed as a fixture.

Regenerate (from the repository root):

    python3 -m venv /tmp/interop-venv
    /tmp/interop-venv/bin/pip install -r Tests/JOSETests/Fixtures/interop/requirements.txt
    /tmp/interop-venv/bin/python Tests/JOSETests/Fixtures/interop/generate.py

then commit Tests/JOSETests/Fixtures/interop/interop_tokens.json. ECDSA and
RSA-PSS signatures are randomized, so the file changes on every run; the
claims are fixed (times are constants, not "now").
"""
import json
import pathlib
import warnings

import joserfc
from joserfc import jwt
from joserfc.jwk import OctKey, import_key

HERE = pathlib.Path(__file__).resolve().parent
KEYS = HERE.parents[3] / "Keys"

# (alg, private key file, key type, public key file the verifier uses)
MATRIX = [
    ("RS256", "rsa2048.pem", "RSA", "rsa2048.pub.jwk"),
    ("RS384", "rsa2048.pem", "RSA", "rsa2048.pub.jwk"),
    ("RS512", "rsa2048.pem", "RSA", "rsa2048.pub.jwk"),
    ("PS256", "rsa3072.pem", "RSA", "rsa3072.pub.jwk"),
    ("PS384", "rsa3072.pem", "RSA", "rsa3072.pub.jwk"),
    ("PS512", "rsa3072.pem", "RSA", "rsa3072.pub.jwk"),
    ("ES256", "p256.pem", "EC", "p256.pub.jwk"),
    ("ES384", "p384.pem", "EC", "p384.pub.jwk"),
    ("ES512", "p521.pem", "EC", "p521.pub.jwk"),
    ("EdDSA", "ed25519.pem", "OKP", "ed25519.pub.jwk"),
    ("Ed25519", "ed25519.pem", "OKP", "ed25519.pub.jwk"),
    ("HS256", "hmac.key", "oct", "hmac.jwk"),
    ("HS384", "hmac.key", "oct", "hmac.jwk"),
    ("HS512", "hmac.key", "oct", "hmac.jwk"),
]

# A realistic OpenID Connect ID token; fixed times so the fixture is stable.
CLAIMS = {
    "iss": "https://accounts.example.com",
    "sub": "248289761001",
    "aud": ["s6BhdRkqt3", "https://api.example.com"],
    "azp": "s6BhdRkqt3",
    "exp": 1767225900,
    "iat": 1767225600,
    "auth_time": 1767225590,
    "nonce": "n-0S6_WzA2Mj",
    "at_hash": "77QmUPtjPfzWtF2AnpK9RQ",
    "name": "Jane Doe",
    "email": "janedoe@example.com",
    "email_verified": True,
    "locale": "nb-NO",
    "amr": ["pwd", "mfa"],
    "address": {"country": "NO", "locality": "Tromsø"},
}


def load_key(path, kty):
    data = (KEYS / path).read_bytes()
    if kty == "oct":
        return OctKey.import_key(data)
    return import_key(data, kty)


def main():
    tokens = []
    for alg, private_file, kty, public_file in MATRIX:
        key = load_key(private_file, kty)
        kid = json.loads((KEYS / public_file).read_text())["kid"]
        header = {"alg": alg, "kid": kid, "typ": "JWT"}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # joserfc warns that EdDSA is deprecated (RFC 9864)
            token = jwt.encode(header, CLAIMS, key, algorithms=[alg])
            # Self-check with joserfc before writing anything.
            decoded = jwt.decode(token, key, algorithms=[alg])
        assert decoded.claims == CLAIMS, alg
        tokens.append({"alg": alg, "key": public_file, "kid": kid, "token": token})
    out = {
        "generator": f"joserfc {joserfc.__version__}",
        "script": "Tests/JOSETests/Fixtures/interop/generate.py",
        "claims": CLAIMS,
        "tokens": tokens,
    }
    (HERE / "interop_tokens.json").write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {len(tokens)} tokens")


if __name__ == "__main__":
    main()
