#!/usr/bin/env python3
"""Fixtures for the 2026 algorithms (RFC 9864 Ed25519, RFC 9964 ML-DSA / kty AKP), made with
Python cryptography (>= 49: ML-DSA in its own OpenSSL), jwcrypto and joserfc from the venv that
jose2026-setup.sh makes:

  .venv-jose2026/bin/python generate_2026.py > vectors_2026.json

Writes, deterministically apart from the ML-DSA and Ed448 signatures (hedged/randomised by the
signers, still valid):
  - ed448: an Ed448 public JWK and two tokens it signed, alg "Ed448" and alg "EdDSA" (an Ed25519
    key, whatever its alg, must never verify them);
  - mldsa: per parameter set, the AKP JWK (pub, priv = 32-byte seed), its RFC 7638-style
    thumbprint over alg, kty, pub, and a compact JWS signed by cryptography; plus one JWS signed by
    jwcrypto with its own AKP JWK;
  - akp_set: a JWK Set holding an AKP key, an unknown kty and an Ed25519 key, and a token signed by
    joserfc with that Ed25519 key (alg Ed25519).
"""
import base64, hashlib, json, sys
import cryptography
from cryptography.hazmat.primitives.asymmetric import ed448, ed25519, mldsa
import jwcrypto, joserfc
from importlib.metadata import version
from jwcrypto import jwk as jwcrypto_jwk, jws as jwcrypto_jws
from joserfc import jws as joserfc_jws
from joserfc.jwk import OKPKey


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def compact(header: dict, payload: bytes, sign) -> str:
    signing_input = b64(json.dumps(header, separators=(",", ":")).encode()) + "." + b64(payload)
    return signing_input + "." + b64(sign(signing_input.encode()))


def thumbprint(members: dict) -> str:
    text = json.dumps(members, separators=(",", ":"), sort_keys=True)
    return b64(hashlib.sha256(text.encode()).digest())


payload = json.dumps({"iss": "https://issuer.example", "sub": "alice", "aud": "client-1", "iat": 1795000000, "exp": 1795000300},
                     separators=(",", ":")).encode()

# Ed448 (never verified by an Ed25519 key).
ed448_key = ed448.Ed448PrivateKey.from_private_bytes(hashlib.shake_256(b"jose2026 ed448").digest(57))
ed448_jwk = {"kty": "OKP", "crv": "Ed448", "x": b64(ed448_key.public_key().public_bytes_raw()), "kid": "ed448-1"}
ed448_tokens = {alg: compact({"alg": alg, "kid": "ed448-1"}, payload, ed448_key.sign) for alg in ("Ed448", "EdDSA")}

# ML-DSA, three parameter sets, from fixed seeds.
classes = {"ML-DSA-44": mldsa.MLDSA44PrivateKey, "ML-DSA-65": mldsa.MLDSA65PrivateKey, "ML-DSA-87": mldsa.MLDSA87PrivateKey}
vectors = []
for alg, cls in classes.items():
    seed = hashlib.sha256(b"jose2026 " + alg.encode()).digest()
    key = cls.from_seed_bytes(seed)
    pub = key.public_key().public_bytes_raw()
    kid = alg.lower()
    jwk = {"kty": "AKP", "alg": alg, "pub": b64(pub), "priv": b64(seed), "kid": kid}
    token = compact({"alg": alg, "kid": kid, "typ": "JWT"}, payload, lambda data: key.sign(data))
    vectors.append({"alg": alg, "jwk": jwk, "thumbprint": thumbprint({"alg": alg, "kty": "AKP", "pub": b64(pub)}),
                    "public_length": len(pub), "signature_length": len(base64.urlsafe_b64decode(token.split(".")[2] + "==")),
                    "token": token})

# jwcrypto's own AKP key and ML-DSA-44 signature.
jwcrypto_key = jwcrypto_jwk.JWK.generate(kty="AKP", alg="ML-DSA-44")
signed = jwcrypto_jws.JWS(payload)
signed.add_signature(jwcrypto_key, alg="ML-DSA-44", protected=json.dumps({"alg": "ML-DSA-44"}))
jwcrypto_vector = {"jwk": json.loads(jwcrypto_key.export_public()), "thumbprint": jwcrypto_key.thumbprint(),
                   "token": signed.serialize(compact=True)}

# A set holding an AKP key, an unknown kty and an Ed25519 key; joserfc signs with the Ed25519 key (alg Ed25519).
ed_key = ed25519.Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"jose2026 ed25519").digest())
ed_jwk = {"kty": "OKP", "crv": "Ed25519", "x": b64(ed_key.public_key().public_bytes_raw()), "kid": "ed-1", "alg": "Ed25519"}
akp_public = {k: v for k, v in vectors[0]["jwk"].items() if k != "priv"}
akp_public["kid"] = "pq-1"
akp_set = {"keys": [akp_public, {"kty": "PQX", "kid": "future-1", "alg": "SLH-DSA-SHA2-128s", "pub": "AAAA"}, ed_jwk]}
private = OKPKey.import_key(dict(ed_jwk, d=b64(ed_key.private_bytes_raw())))
joserfc_token = joserfc_jws.serialize_compact({"alg": "Ed25519", "kid": "ed-1"}, payload, private, algorithms=["Ed25519"])

json.dump({
    "generator": f"cryptography {version('cryptography')}, jwcrypto {version('jwcrypto')}, joserfc {version('joserfc')}",
    "payload": payload.decode(),
    "ed448": {"jwk": ed448_jwk, "tokens": ed448_tokens},
    "mldsa": vectors,
    "jwcrypto_mldsa": jwcrypto_vector,
    "akp_set": {"set": akp_set, "token": joserfc_token},
}, sys.stdout, indent=1)
sys.stdout.write("\n")
