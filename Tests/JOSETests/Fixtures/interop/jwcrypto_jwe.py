#!/usr/bin/env python3
"""jwcrypto's side of the JWE interop tests (JwcryptoInteropTests).

  jwcrypto_jwe.py enc KEY.jwk ALG ENC PLAINTEXT_FILE   prints a compact JWE
  jwcrypto_jwe.py dec KEY.jwk TOKEN_FILE               prints the plaintext (exit 1 if refused)

A KEY file whose name ends in .pem is read as PEM (jwk.JWK.from_pem).
"""
import json, sys
from jwcrypto import jwe, jwk

def main():
    command, key_path = sys.argv[1], sys.argv[2]
    if key_path.endswith(".pem"):
        with open(key_path, "rb") as f:
            key = jwk.JWK.from_pem(f.read())
    else:
        with open(key_path) as f:
            key = jwk.JWK(**json.load(f))
    if command == "enc":
        alg, enc, path = sys.argv[3], sys.argv[4], sys.argv[5]
        with open(path, "rb") as f:
            plaintext = f.read()
        token = jwe.JWE(plaintext, json.dumps({"alg": alg, "enc": enc}))
        token.add_recipient(key)
        sys.stdout.write(token.serialize(compact=True))
    elif command == "dec":
        with open(sys.argv[3]) as f:
            text = f.read().strip()
        token = jwe.JWE()
        try:
            token.deserialize(text, key=key)
        except Exception as error:  # any refusal
            sys.stderr.write(f"refused: {error}\n")
            sys.exit(1)
        sys.stdout.buffer.write(token.payload)
    else:
        sys.exit(2)

main()
