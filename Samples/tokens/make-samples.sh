#!/usr/bin/env bash
# Regenerates the sample tokens in this folder from the public test keys in
# Keys/ with the openssl command line (signatures) and Python's standard
# library (Base64URL, and ECDSA DER -> r||s). Test keys only: never trust these tokens.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
keys="$here/../../Keys"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

b64url() { python3 -c 'import base64,sys; sys.stdout.write(base64.urlsafe_b64encode(sys.stdin.buffer.read()).rstrip(b"=").decode())'; }
kid() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kid"])' "$1"; }
der_to_raw() {  # $1 = coordinate size; DER ECDSA signature on stdin -> r||s on stdout
    python3 -c '
import sys
size = int(sys.argv[1]); der = sys.stdin.buffer.read()
def read_int(b, i):
    assert b[i] == 2; n = b[i + 1]; i += 2
    return int.from_bytes(b[i:i + n], "big"), i + n
i = 2 if der[1] < 0x80 else 3
r, i = read_int(der, i); s, _ = read_int(der, i)
sys.stdout.buffer.write(r.to_bytes(size, "big") + s.to_bytes(size, "big"))' "$1"
}

# make NAME ALG KIDFILE PAYLOAD SIGNER...
make() {
    local name=$1 alg=$2 kid=$3 payload=$4; shift 4
    local header="{\"alg\":\"$alg\",\"typ\":\"JWT\",\"kid\":\"$kid\"}"
    local input
    input="$(printf '%s' "$header" | b64url).$(printf '%s' "$payload" | b64url)"
    printf '%s' "$input" > "$tmp/input"
    "$@" < "$tmp/input" > "$tmp/sig"
    printf '%s.%s\n' "$input" "$(b64url < "$tmp/sig")" > "$here/$name.jwt"
}

claims() {  # exp iat
    printf '{"iss":"https://issuer.example","sub":"248289761001","aud":"sample-client","exp":%s,"iat":%s,"auth_time":%s,"nonce":"n-0S6_WzA2Mj","name":"Jane Doe","email":"janedoe@example.com","email_verified":true,"acr":"urn:mace:incommon:iap:silver","amr":["pwd","otp"],"session_state":"6f0b3c2a-9d4e","cmiInstanceId":"cmi-42"}' "$1" "$2" "$2"
}

valid=$(claims 4102444800 1763800000)     # expires 2100-01-01
expired=$(claims 1577836800 1577833200)   # expired 2020-01-01

make rs256 RS256 "$(kid "$keys/rsa2048.pub.jwk")" "$valid" openssl dgst -sha256 -sign "$keys/rsa2048.pem"
make expired RS256 "$(kid "$keys/rsa2048.pub.jwk")" "$expired" openssl dgst -sha256 -sign "$keys/rsa2048.pem"
sign_es256() { openssl dgst -sha256 -sign "$keys/p256.pem" | der_to_raw 32; }
make es256 ES256 "$(kid "$keys/p256.pub.jwk")" "$valid" sign_es256
make hs256 HS256 "$(kid "$keys/hmac.jwk")" "$valid" openssl dgst -sha256 -binary -mac HMAC -macopt "hexkey:$(xxd -p -c 256 "$keys/hmac.key")"
ls "$here"/*.jwt
