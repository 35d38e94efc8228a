"""The reference implementation's side of the SD-JWT interop tests (CLISDJWTInteropTests).

  reference-cases OUT      issue and present every test case of testcases/ with PyPI's sd-jwt; write
                           OUT/<case>.presentation, OUT/<case>.expected.json, OUT/<case>.binding (aud nonce or empty),
                           OUT/issuer.pub.jwk, OUT/holder.jwk (the reference's fixed keys)
  verify FILE KEY [AUD NONCE]
                           verify the presentation in FILE with the issuer's public JWK in KEY (and key binding);
                           print the verified claims as JSON, exit 1 on refusal
  present FILE DISCLOSED HOLDER AUD NONCE
                           present the issued SD-JWT in FILE with holder_disclosed_claims DISCLOSED (JSON) and a KB-JWT
                           signed by the JWK in HOLDER (or no KB-JWT when HOLDER is "-")
"""
import json
import os
import sys

from jwcrypto.jwk import JWK
from sd_jwt.holder import SDJWTHolder
from sd_jwt.issuer import SDJWTIssuer
from sd_jwt.utils.yaml_specification import load_yaml_specification, remove_sdobj_wrappers
from sd_jwt.verifier import SDJWTVerifier
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "testcases")


def settings():
    with open(os.path.join(CASES, "settings.yml")) as f:
        return yaml.safe_load(f)


def reference_cases(out):
    s = settings()
    issuer_key = JWK.from_json(json.dumps(s["key_settings"]["issuer_keys"][0]))
    holder_key = JWK.from_json(json.dumps(s["key_settings"]["holder_key"]))
    with open(os.path.join(out, "issuer.pub.jwk"), "w") as f:
        f.write(issuer_key.export_public())
    with open(os.path.join(out, "holder.jwk"), "w") as f:
        f.write(holder_key.export_private())
    issuer = s["identifiers"]["issuer"]
    verifier = s["identifiers"]["verifier"]
    nonce = s["key_binding_nonce"]
    for name in sorted(os.listdir(CASES)):
        if name == "settings.yml" or not name.endswith(".yml"):
            continue
        case = load_yaml_specification(os.path.join(CASES, name))
        stem = name[:-4]
        bound = case.get("key_binding", False)
        claims = {"iss": issuer}
        claims.update(case["user_claims"])
        header = {"typ": "testcase+sd-jwt"}
        header.update(case.get("extra_header_parameters", {}))
        issued = SDJWTIssuer(
            claims, issuer_key, holder_key if bound else None,
            add_decoy_claims=case.get("add_decoy_claims", False), extra_header_parameters=header,
        ).sd_jwt_issuance
        holder = SDJWTHolder(issued)
        holder.create_presentation(
            case["holder_disclosed_claims"], nonce if bound else None, verifier if bound else None, holder_key if bound else None,
        )
        expected = remove_sdobj_wrappers(case["expect_verified_user_claims"])
        expected["iss"] = issuer
        if bound:
            expected["cnf"] = {"jwk": holder_key.export_public(as_dict=True)}
        with open(os.path.join(out, stem + ".presentation"), "w") as f:
            f.write(holder.sd_jwt_presentation)
        with open(os.path.join(out, stem + ".expected.json"), "w") as f:
            json.dump(expected, f, sort_keys=True)
        with open(os.path.join(out, stem + ".binding"), "w") as f:
            f.write(f"{verifier} {nonce}" if bound else "")


def verify(path, key_path, aud=None, nonce=None):
    with open(path) as f:
        presentation = f.read().strip()
    with open(key_path) as f:
        key = JWK.from_json(f.read())
    verifier = SDJWTVerifier(presentation, lambda issuer, header: key, aud, nonce)
    print(json.dumps(verifier.get_verified_payload(), sort_keys=True))


def present(path, disclosed, holder_path, aud, nonce):
    with open(path) as f:
        issued = f.read().strip()
    holder = SDJWTHolder(issued)
    key = None
    if holder_path != "-":
        with open(holder_path) as f:
            key = JWK.from_json(f.read())
    holder.create_presentation(json.loads(disclosed), nonce if key else None, aud if key else None, key)
    print(holder.sd_jwt_presentation)


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    try:
        if command == "reference-cases":
            reference_cases(*args)
        elif command == "verify":
            verify(*args)
        elif command == "present":
            present(*args)
        else:
            sys.exit(f"unknown command {command}")
    except (ValueError, KeyError, TypeError, Exception) as error:  # the reference's refusals are plain exceptions
        print(f"refused: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
