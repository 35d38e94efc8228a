"""Signing keys for the test glewlwyd, made with the openssl command line (stdlib only).

    python3 keys.py DIR     # writes DIR/{rs256,es256,eddsa}.pem, DIR/jwks-private.json, DIR/jwks.json

Each key is a fresh key pair: RS256 (RSA 2048), ES256 (P-256) and EdDSA (Ed25519), with
kids "rs256-1", "es256-1", "eddsa-1". The JWK forms are read from `openssl pkey -text`.
"""

import base64
import json
import os
import re
import subprocess
import sys

SPECS = {
    "rs256": ("RS256", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]),
    "es256": ("ES256", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]),
    "eddsa": ("EdDSA", ["-algorithm", "ED25519"]),
}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def text_fields(pem_path: str) -> dict:
    """Hex fields of `openssl pkey -text -noout` as bytes, by field name."""
    out = subprocess.run(["openssl", "pkey", "-in", pem_path, "-text", "-noout"],
                         check=True, capture_output=True, text=True).stdout
    fields, name, hexdigits = {}, None, []
    for line in out.splitlines():
        m = re.match(r"^([A-Za-z0-9]+):\s*(.*)$", line)
        if m and not line.startswith(" "):
            if name:
                fields[name] = bytes.fromhex("".join(hexdigits))
            name, hexdigits = m.group(1), []
            rest = m.group(2)
            pm = re.match(r"^(\d+) \(0x[0-9a-f]+\)$", rest)
            if pm:  # publicExponent: 65537 (0x10001)
                n = int(pm.group(1))
                fields[name] = n.to_bytes((n.bit_length() + 7) // 8, "big")
                name = None
        elif name and line.startswith(" "):
            hexdigits.append(line.strip().replace(":", ""))
    if name:
        fields[name] = bytes.fromhex("".join(hexdigits))
    return fields


def unsigned(b: bytes) -> bytes:
    return b.lstrip(b"\x00") or b"\x00"


def jwk_pair(kind: str, pem_path: str):
    alg = SPECS[kind][0]
    f = text_fields(pem_path)
    kid = f"{kind}-1"
    if kind == "rs256":
        pub = {"kty": "RSA", "n": b64(unsigned(f["modulus"])), "e": b64(unsigned(f["publicExponent"]))}
        priv = dict(pub, d=b64(unsigned(f["privateExponent"])), p=b64(unsigned(f["prime1"])),
                    q=b64(unsigned(f["prime2"])), dp=b64(unsigned(f["exponent1"])),
                    dq=b64(unsigned(f["exponent2"])), qi=b64(unsigned(f["coefficient"])))
    elif kind == "es256":
        point = f["pub"]
        if len(point) != 65 or point[0] != 4:
            raise SystemExit(f"keys.py: unexpected P-256 public point in {pem_path}")
        pub = {"kty": "EC", "crv": "P-256", "x": b64(point[1:33]), "y": b64(point[33:])}
        priv = dict(pub, d=b64(unsigned(f["priv"]).rjust(32, b"\x00")))
    else:
        pub = {"kty": "OKP", "crv": "Ed25519", "x": b64(f["pub"])}
        priv = dict(pub, d=b64(f["priv"]))
    meta = {"kid": kid, "alg": alg, "use": "sig"}
    return dict(priv, **meta), dict(pub, **meta)


def main() -> None:
    if len(sys.argv) != 2:
        print("usage: keys.py DIR", file=sys.stderr)
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    private, public = [], []
    for kind, (_, args) in SPECS.items():
        pem = os.path.join(out, f"{kind}.pem")
        subprocess.run(["openssl", "genpkey", *args, "-out", pem], check=True, capture_output=True)
        priv, pub = jwk_pair(kind, pem)
        private.append(priv)
        public.append(pub)
    with open(os.path.join(out, "jwks-private.json"), "w") as fh:
        json.dump({"keys": private}, fh)
    with open(os.path.join(out, "jwks.json"), "w") as fh:
        json.dump({"keys": public}, fh)


if __name__ == "__main__":
    main()
