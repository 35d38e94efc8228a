#!/usr/bin/env python3
"""jwcrypto's and joserfc's side of Ed25519InteropTests (RFC 9864 Ed25519, kty AKP sets).

  jose2026_interop.py sign LIB KEY.jwk ALG PAYLOAD_FILE   prints a compact JWS signed by LIB
  jose2026_interop.py verify LIB KEY.jwk ALG TOKEN_FILE   prints the payload (exit 1 if LIB refuses)
  jose2026_interop.py set LIB SET.json KID ALG TOKEN_FILE reads the JWK Set with LIB, prints the kids it kept,
                                                          then verifies TOKEN with the key KID (exit 1 if refused)
  jose2026_interop.py makeset SET_OUT TOKEN_OUT PAYLOAD_FILE
                                                          jwcrypto makes an AKP ML-DSA-44 key, an Ed25519 key
                                                          (alg Ed25519) and an unknown-kty entry, writes the public
                                                          set, and signs PAYLOAD with the Ed25519 key (alg Ed25519)
LIB is jwcrypto or joserfc.
"""
import json, sys


def load(path):
    with open(path) as f:
        return json.load(f)


def sign(lib, key, alg, payload):
    if lib == "jwcrypto":
        from jwcrypto import jwk, jws
        token = jws.JWS(payload)
        header = {"alg": alg}
        if "kid" in key:
            header["kid"] = key["kid"]
        token.add_signature(jwk.JWK(**key), alg=alg, protected=json.dumps(header))
        return token.serialize(compact=True)
    from joserfc import jws
    from joserfc.jwk import OKPKey
    header = {"alg": alg}
    if "kid" in key:
        header["kid"] = key["kid"]
    return jws.serialize_compact(header, payload, OKPKey.import_key(key), algorithms=[alg])


def verify(lib, key, alg, token):
    if lib == "jwcrypto":
        from jwcrypto import jwk, jws
        checked = jws.JWS()
        checked.deserialize(token)
        checked.allowed_algs = [alg]
        checked.verify(key if isinstance(key, jwk.JWK) else jwk.JWK(**key))
        return checked.payload
    from joserfc import jws
    from joserfc.jwk import OKPKey
    if not hasattr(key, "as_dict"):
        key = OKPKey.import_key(key)
    return jws.deserialize_compact(token, key, algorithms=[alg]).payload


def main():
    command = sys.argv[1]
    if command == "sign":
        lib, key, alg = sys.argv[2], load(sys.argv[3]), sys.argv[4]
        with open(sys.argv[5], "rb") as f:
            sys.stdout.write(sign(lib, key, alg, f.read()))
    elif command == "verify":
        lib, key, alg = sys.argv[2], load(sys.argv[3]), sys.argv[4]
        with open(sys.argv[5]) as f:
            token = f.read().strip()
        try:
            sys.stdout.write(verify(lib, key, alg, token).decode())
        except Exception as error:  # a refusal: the test only needs the exit status
            sys.stderr.write(f"refused: {type(error).__name__}: {error}\n")
            sys.exit(1)
    elif command == "set":
        lib, document, kid, alg = sys.argv[2], load(sys.argv[3]), sys.argv[4], sys.argv[5]
        with open(sys.argv[6]) as f:
            token = f.read().strip()
        if lib == "jwcrypto":
            from jwcrypto import jwk
            keys = jwk.JWKSet()
            keys.import_keyset(json.dumps(document))
            kids = [k.get("kid") for k in keys["keys"]]
            key = keys.get_key(kid)
        else:
            from joserfc.jwk import KeySet
            keys = KeySet.import_key_set(document)
            kids = [k.kid for k in keys.keys]
            key = keys.get_by_kid(kid)
        print("kept " + " ".join(sorted(k for k in kids if k)))
        try:
            print("payload " + verify(lib, key, alg, token).decode())
        except Exception as error:
            sys.stderr.write(f"refused: {type(error).__name__}: {error}\n")
            sys.exit(1)
    elif command == "makeset":
        from jwcrypto import jwk
        akp = jwk.JWK.generate(kty="AKP", alg="ML-DSA-44", kid="pq-jwcrypto")
        ed = jwk.JWK.generate(kty="OKP", crv="Ed25519", kid="ed-jwcrypto", alg="Ed25519")
        document = {"keys": [json.loads(akp.export_public()), {"kty": "PQX", "kid": "future-jwcrypto"}, json.loads(ed.export_public())]}
        with open(sys.argv[2], "w") as f:
            json.dump(document, f)
        with open(sys.argv[4], "rb") as f:
            payload = f.read()
        with open(sys.argv[3], "w") as f:
            f.write(sign("jwcrypto", json.loads(ed.export_private()), "Ed25519", payload))
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
