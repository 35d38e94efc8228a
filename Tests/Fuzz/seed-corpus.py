#!/usr/bin/env python3
"""Regenerates Tests/Fuzz/Corpus/<target>/ (the committed seed corpora).

  python3 Tests/Fuzz/seed-corpus.py [VECTORS_DIR]   (default /work/shared/vectors,
                                                      else Tests/JOSETests/Fixtures/vectors)

Sources: tokens signed here with the repository's Keys/ (python 'cryptography'),
the interop and sample tokens already in the repository, a few dozen RFC 7515/
7520/7797/8037 and Wycheproof JWS strings, keys, JWK Sets, PEMs, claim sets,
redirects, token responses and provider metadata. File names are the SHA-1 of
the content (libFuzzer's convention), so re-running is idempotent.
"""
import base64, glob, hashlib, hmac, json, os, shutil, sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
KEYS = os.path.join(ROOT, "Keys")
VECTORS = sys.argv[1] if len(sys.argv) > 1 else (
    "/work/shared/vectors" if os.path.isdir("/work/shared/vectors") else os.path.join(ROOT, "Tests/JOSETests/Fixtures/vectors"))
OUT = os.path.join(HERE, "Corpus")

corpus = {}


def add(target, data):
    if isinstance(data, str):
        data = data.encode()
    corpus.setdefault(target, set()).add(bytes(data))


def b64(data):
    if isinstance(data, str):
        data = data.encode()
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def key_text(name):
    with open(os.path.join(KEYS, name)) as f:
        return f.read()


def load_jwk(name):
    return json.loads(key_text(name))


def pem_private(name):
    return serialization.load_pem_private_key(key_text(name).encode(), password=None)


HMAC_KEY = base64.urlsafe_b64decode(load_jwk("hmac.jwk")["k"] + "==")
KIDS = {k["kty"] + k.get("crv", "") + k.get("alg", ""): k.get("kid") for k in json.loads(key_text("jwks.json"))["keys"]}


def kid_of(name):
    return load_jwk(name.replace(".pem", ".pub.jwk") if name.endswith(".pem") else name).get("kid")


def signer(alg):
    if alg.startswith("HS"):
        h = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}[alg]
        return lambda m: hmac.new(HMAC_KEY, m, h).digest(), load_jwk("hmac.jwk").get("kid")
    if alg in ("RS256", "RS384", "RS512", "PS256", "PS384"):
        name = "rsa3072.pem" if alg == "PS384" else "rsa2048.pem"
        key = pem_private(name)
        h = {"256": hashes.SHA256(), "384": hashes.SHA384(), "512": hashes.SHA512()}[alg[2:]]
        pad = padding.PKCS1v15() if alg.startswith("RS") else padding.PSS(mgf=padding.MGF1(h), salt_length=h.digest_size)
        return lambda m: key.sign(m, pad, h), kid_of(name)
    if alg.startswith("ES"):
        name, h, size = {"ES256": ("p256.pem", hashes.SHA256(), 32), "ES384": ("p384.pem", hashes.SHA384(), 48),
                         "ES512": ("p521.pem", hashes.SHA512(), 66)}[alg]
        key = pem_private(name)

        def sign(m):
            r, s = utils.decode_dss_signature(key.sign(m, ec.ECDSA(h)))
            return r.to_bytes(size, "big") + s.to_bytes(size, "big")
        return sign, kid_of(name)
    if alg == "EdDSA":
        key = pem_private("ed25519.pem")
        return key.sign, kid_of("ed25519.pem")
    raise ValueError(alg)


def compact(alg, payload, header_extra=None, with_kid=True, b64_payload=True):
    sign, kid = signer(alg)
    header = {"alg": alg, "typ": "JWT"}
    if with_kid and kid:
        header["kid"] = kid
    header.update(header_extra or {})
    protected = b64(json.dumps(header, separators=(",", ":")))
    body = b64(payload) if b64_payload else payload.decode()
    signing_input = (protected + "." + body).encode()
    return protected + "." + body + "." + b64(sign(signing_input)), protected, body, header


NOW = 1_800_000_000
CLAIMS = [
    {"iss": "https://issuer.example", "sub": "alice", "aud": "client", "exp": NOW + 3600, "iat": NOW, "nbf": NOW - 10},
    {"iss": "https://issuer.example", "sub": "bob", "aud": ["client", "api"], "exp": NOW + 60.5, "iat": NOW,
     "nonce": "n-0S6_WzA2Mj", "auth_time": NOW - 5, "acr": "urn:mace:incommon:iap:silver", "amr": ["pwd", "otp"],
     "azp": "client", "at_hash": "77QmUPtjPfzWtF2AnpK9RQ", "c_hash": "LDktKdoQak3Pk0cnXxCltA", "sid": "s1",
     "email": "bob@example.com", "email_verified": True, "name": "B\u00f6b \u2603", "address": {"country": "DE"}},
    {"sub": "x", "exp": -1, "iat": 1e308, "nested": {"a": [1, 2.5, -0.0, 1e-7, None, True, False, "\u0000"]}},
    {"iss": "joe", "exp": 1300819380, "http://example.com/is_root": True},
    {},
]

# --- JWS compact / JWT claims / ID Token / base64url ------------------------------------
for i, claims in enumerate(CLAIMS):
    payload = json.dumps(claims, separators=(",", ":"), ensure_ascii=False).encode()
    add("fuzz-jwt-claims", payload)
    add("fuzz-json", payload)
    for alg in ["RS256", "PS256", "ES256", "EdDSA", "HS256"] + (["RS384", "RS512", "PS384", "ES384", "ES512", "HS384", "HS512"] if i == 0 else []):
        token, protected, body, header = compact(alg, payload, with_kid=(i % 2 == 0))
        for target in ("fuzz-jws-compact", "fuzz-oidc-id-token"):
            add(target, token)
        add("fuzz-base64url", protected)
        add("fuzz-base64url", token.split(".")[2])
        add("fuzz-json", json.dumps(header))
token, *_ = compact("HS256", b"$.02", {"b64": False, "crit": ["b64"]}, b64_payload=False)
add("fuzz-jws-compact", token)
token, *_ = compact("ES256", b'{"sub":"x"}', {"crit": ["exp"], "exp": NOW})
add("fuzz-jws-compact", token)
add("fuzz-jws-compact", b64(json.dumps({"alg": "none"})) + "." + b64(b'{"sub":"x"}') + ".")
add("fuzz-jws-compact", b64(json.dumps({"alg": "RS256", "jwk": load_jwk("rsa2048.pub.jwk")})) + "." + b64("{}") + "." + b64(b"\0" * 256))
add("fuzz-jws-compact", b64(json.dumps({"alg": "HS256", "kid": "../../etc/passwd", "x5u": "https://x"})) + "." + b64("{}") + "." + b64(b"\0" * 32))
for name in ("rs256", "hs256", "es256", "expired"):
    path = os.path.join(ROOT, "Samples/tokens", name + ".jwt")
    if os.path.exists(path):
        add("fuzz-jws-compact", open(path).read().strip())
interop = os.path.join(ROOT, "Tests/JOSETests/Fixtures/interop/interop_tokens.json")
if os.path.exists(interop):
    tokens = json.load(open(interop))["tokens"]
    values = tokens.values() if isinstance(tokens, dict) else tokens
    for t in list(values)[:14]:
        text = t if isinstance(t, str) else t.get("token") or t.get("compact")
        if isinstance(text, str):
            add("fuzz-jws-compact", text)
add("fuzz-base64url", "")
add("fuzz-base64url", "AA")
add("fuzz-base64url", "_-_-")
add("fuzz-base64url", "QUJD=")

# RFC vectors.
for path in sorted(glob.glob(os.path.join(VECTORS, "rfc", "*.json"))):
    v = json.load(open(path))
    if isinstance(v.get("token"), str):
        add("fuzz-jws-compact", v["token"])
    for form in ("general", "flattened"):
        if v.get(form):
            add("fuzz-jws-json", json.dumps(v[form]))
    for field in ("jwk", "jwks", "jwks_private"):
        if v.get(field):
            add("fuzz-jwk", json.dumps(v[field]))
    if isinstance(v.get("protected_header"), str):
        add("fuzz-json", v["protected_header"])
    if isinstance(v.get("payload"), str) and v["payload"].startswith("{"):
        add("fuzz-jwt-claims", v["payload"])

# Wycheproof: a few dozen whole-JWS strings and JWK sets.
wp = os.path.join(VECTORS, "wycheproof", "testvectors_v1")
jws_file = os.path.join(wp, "json_web_signature_test.json")
if os.path.exists(jws_file):
    picked = 0
    for group in json.load(open(jws_file))["testGroups"]:
        add("fuzz-jwk", json.dumps(group["private"]))
        for test in group["tests"][:3]:
            target = "fuzz-jws-json" if test["jws"].lstrip().startswith("{") else "fuzz-jws-compact"
            add(target, test["jws"])
            picked += 1
key_file = os.path.join(wp, "json_web_key_test.json")
if os.path.exists(key_file):
    for group in json.load(open(key_file))["testGroups"][:20]:
        add("fuzz-jwk", json.dumps(group["private"]))
        for test in group["tests"][:1]:
            if test["jws"].lstrip().startswith("{"):
                add("fuzz-jws-json", test["jws"])

# JWS JSON serialization signed here (general with two signatures, flattened, unprotected header).
payload = json.dumps(CLAIMS[0]).encode()
sigs = []
for alg in ("HS256", "ES256", "RS256"):
    token, protected, body, header = compact(alg, payload, with_kid=False)
    sigs.append({"protected": protected, "header": {"kid": signer(alg)[1]}, "signature": token.split(".")[2]})
add("fuzz-jws-json", json.dumps({"payload": b64(payload), "signatures": sigs}))
add("fuzz-jws-json", json.dumps({"payload": b64(payload), **sigs[0]}))
add("fuzz-jws-json", json.dumps({"payload": b64(payload), "signatures": []}))

# --- keys ------------------------------------------------------------------------------
for path in sorted(glob.glob(os.path.join(KEYS, "*.jwk"))) + [os.path.join(KEYS, "jwks.json")]:
    add("fuzz-jwk", open(path).read())
add("fuzz-jwk", json.dumps({"keys": [load_jwk("p256.pub.jwk"), load_jwk("p256.pub.jwk")]}))
add("fuzz-jwk", json.dumps({"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"}))
add("fuzz-jwk", json.dumps({"kty": "RSA", "n": "AQAB", "e": "AQAB", "key_ops": ["verify"], "x5c": ["MA"]}))
add("fuzz-jwk", json.dumps({"kty": "OKP", "crv": "Ed25519", "x": b64(b"\1" * 32)}))
add("fuzz-jwk", json.dumps({"kty": "oct", "k": ""}))
for path in sorted(glob.glob(os.path.join(KEYS, "*.pem"))):
    add("fuzz-pem", open(path).read())
add("fuzz-pem", "-----BEGIN PUBLIC KEY-----\nMA==\n-----END PUBLIC KEY-----\n")
add("fuzz-pem", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMA==\n-----END ENCRYPTED PRIVATE KEY-----\n")


# DER variants the strict reader accepts besides plain OpenSSL output: a compressed EC
# point, EC private keys without their public point (SEC1, PKCS#8), RFC 5958
# OneAsymmetricKey with its publicKey [1], rsaEncryption without NULL parameters.
def tlv(tag, body):
    n = len(body)
    length = bytes([n]) if n < 128 else bytes([0x80 | ((n.bit_length() + 7) // 8)]) + n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag]) + length + body


def der_children(der):
    out, i = [], 0
    while i < len(der):
        n, h = der[i + 1], 2
        if n & 0x80:
            n, h = int.from_bytes(der[i + 2:i + 2 + (n & 0x7F)], "big"), 2 + (n & 0x7F)
        out.append((der[i], der[i + h:i + h + n], der[i:i + h + n]))
        i += h + n
    return out


def pem_der(name):
    return base64.b64decode("".join(line for line in key_text(name).splitlines() if not line.startswith("-----")))


def to_pem(label, der):
    body = base64.b64encode(der).decode()
    return f"-----BEGIN {label}-----\n" + "\n".join(body[i:i + 64] for i in range(0, len(body), 64)) + f"\n-----END {label}-----\n"


spki = der_children(der_children(pem_der("p256.pub.pem"))[0][1])
point = spki[1][1][1:]
add("fuzz-pem", to_pem("PUBLIC KEY", tlv(0x30, spki[0][2] + tlv(0x03, bytes([0, 2 | (point[-1] & 1)]) + point[1:33]))))
sec1 = der_children(der_children(pem_der("p256.sec1.pem"))[0][1])
add("fuzz-pem", to_pem("EC PRIVATE KEY", tlv(0x30, b"".join(c[2] for c in sec1[:3]))))
pkcs8 = der_children(der_children(pem_der("p256.pem"))[0][1])
inner = der_children(der_children(pkcs8[2][1])[0][1])
add("fuzz-pem", to_pem("PRIVATE KEY", tlv(0x30, pkcs8[0][2] + pkcs8[1][2] + tlv(0x04, tlv(0x30, inner[0][2] + inner[1][2])))))
add("fuzz-pem", to_pem("PRIVATE KEY", tlv(0x30, tlv(0x02, b"\x01") + pkcs8[1][2] + pkcs8[2][2] + tlv(0x81, spki[1][1]))))
ed = der_children(der_children(pem_der("ed25519.pem"))[0][1])
ed_spki = der_children(der_children(pem_der("ed25519.pub.pem"))[0][1])
add("fuzz-pem", to_pem("PRIVATE KEY", tlv(0x30, tlv(0x02, b"\x01") + ed[1][2] + ed[2][2] + tlv(0x81, ed_spki[1][1]))))
x = der_children(der_children(pem_der("x25519.pem"))[0][1])
x_spki = der_children(der_children(pem_der("x25519.pub.pem"))[0][1])
add("fuzz-pem", to_pem("PRIVATE KEY", tlv(0x30, tlv(0x02, b"\x01") + x[1][2] + x[2][2] + tlv(0x81, x_spki[1][1]))))
rsa_spki = der_children(der_children(pem_der("rsa2048.pub.pem"))[0][1])
add("fuzz-pem", to_pem("PUBLIC KEY", tlv(0x30, tlv(0x30, der_children(rsa_spki[0][1])[0][2]) + rsa_spki[1][2])))

# --- JSON ------------------------------------------------------------------------------
for text in ['[]', '{}', 'null', '0', '-0.0e+1', '"\\u0000\\ud83d\\ude00"', '[1,[2,[3,[4,[5]]]]]',
             '{"a":1,"a":2}', '{"a":{"b":{"a":1}}}', '123456789012345678901234567890', '"\\ud800"', '1E400',
             '{"keys":[]}', ' \t\r\n{ "x" : [ true , false , null ] } ']:
    add("fuzz-json", text)
add("fuzz-json", key_text("jwks.json"))

# --- OIDC ------------------------------------------------------------------------------
state, iss = "af0ifjsldkj", "https%3A%2F%2Fissuer.example"
for selector in range(0, 64, 5):
    for suffix in [f"?tenant=a&code=SplxlOBeZQQYbYS6WxSbIA&state={state}&iss={iss}",
                   f"?tenant=a#code=abc&state={state}&id_token=eyJ.eyJ.sig&token_type=Bearer&access_token=at",
                   f"?tenant=a&error=access_denied&error_description=no+way&state={state}",
                   f"code=abc&state={state}&iss={iss}",
                   f"https://client.example/cb?tenant=a&code=%E2%82%AC&state={state}&state={state}"]:
        add("fuzz-oidc-redirect", bytes([selector]) + suffix.encode())
ok = {"access_token": "SlAV32hkKG", "token_type": "Bearer", "refresh_token": "8xLOxBtZp8", "expires_in": 3600,
      "id_token": compact("RS256", json.dumps(CLAIMS[1]).encode())[0], "scope": "openid email"}
for status_sel, header_sel, body in [
        (0, 0, json.dumps(ok)), (0, 1, json.dumps({"access_token": "x", "token_type": "DPoP", "expires_in": "3600"})),
        (6, 0, json.dumps({"error": "invalid_grant", "error_description": "expired", "error_uri": "https://x"})),
        (7, 0x80, 'Bearer realm="x", error="invalid_token", error_description="expired"\n{"error":"invalid_client"}'),
        (11, 2, "<html>oops</html>"), (0, 0, json.dumps({"sub": "alice", "email": "a@example.com"})),
        (0, 0, json.dumps({"access_token": "x", "token_type": "Bearer", "expires_in": 1e300})), (9, 4, "")]:
    add("fuzz-oidc-token-response", bytes([status_sel, header_sel]) + body.encode())
meta = {"issuer": "https://issuer.example", "authorization_endpoint": "https://issuer.example/authorize",
        "token_endpoint": "https://issuer.example/token", "jwks_uri": "https://issuer.example/jwks",
        "userinfo_endpoint": "https://issuer.example/userinfo", "response_types_supported": ["code", "id_token"],
        "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256", "ES256"],
        "scopes_supported": ["openid"], "claims_parameter_supported": True, "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": True, "x-extra": {"a": [1]}}
add("fuzz-oidc-discovery", json.dumps(meta))
add("fuzz-oidc-discovery", json.dumps({"issuer": "http://127.0.0.1:9400/", "jwks_uri": 5}))
add("fuzz-oidc-discovery", json.dumps({"issuer": "https://issuer.example", "response_types_supported": "code"}))
add("fuzz-json", json.dumps(meta))

# --- jwt-inspect's HTTP response reader ------------------------------------------------------
jwks_body = json.dumps({"keys": []}).encode()
for response in [
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(jwks_body) + jwks_body,
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"key\r\n8;ext=1\r\ns\": []}\n\r\n0\r\nX-Trailer: 1\r\n\r\n",
        b"HTTP/1.0 200 OK\r\nServer: x\r\n\r\n" + json.dumps(meta).encode(),
        b"HTTP/1.1 302 Found\r\nLocation: https://elsewhere.example/\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found",
        # The shapes that crashed or were accepted before: negative and huge sizes, conflicting lengths.
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n{}",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n{}\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\n{}\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
        b"HTTP/1.1 500 \x1b[31mboom\r\nTransfer-Encoding: gzip\x1b]0;t\x07\r\n\r\n"]:
    add("fuzz-http-response", response)

# --- write ------------------------------------------------------------------------------
for target, items in sorted(corpus.items()):
    directory = os.path.join(OUT, target)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    for data in items:
        with open(os.path.join(directory, hashlib.sha1(data).hexdigest()), "wb") as f:
            f.write(data)
    print(f"{target}: {len(items)} seeds")
