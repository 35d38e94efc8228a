#!/usr/bin/env bash
# Key-rotation + token-expiry smoke test of the test IdP.
#  1. start with the repo key (Keys/rsa2048.pem), get an ID token (kid A);
#  2. generate a fresh RSA-2048 key into run/ (openssl genpkey), restart with
#     IDP_SIGNING_KEY=<new> IDP_INACTIVE_KEYS=<old> IDP_ACCESS_TOKEN_SECONDS=2;
#  3. check the JWKS publishes both keys, new ID tokens carry kid B, the old
#     ID token still verifies, and an expired access token gets 401 at userinfo.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
HERE="$(pwd)"
PY="${IDP_SMOKE_PYTHON:-python3}"
OLD_KEY="$(cd "$HERE/../.." && pwd)/Keys/rsa2048.pem"
mkdir -p "$HERE/run"
NEW_KEY="$HERE/run/rotated-$$.pem"

PORT="$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
cleanup() { "$HERE/stop.sh" "$PORT" || true; rm -f "$NEW_KEY"; }
trap cleanup EXIT

if command -v openssl >/dev/null 2>&1; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$NEW_KEY" 2>/dev/null
else  # fall back to the venv's cryptography package
    "$HERE/.venv/bin/python" - "$NEW_KEY" <<'PY'
import sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
k = rsa.generate_private_key(public_exponent=65537, key_size=2048)
open(sys.argv[1], "wb").write(k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
PY
fi

echo "== rotation: phase 1 on 127.0.0.1:$PORT with $OLD_KEY"
ISSUER="$(IDP_SIGNING_KEY="$OLD_KEY" "$HERE/start.sh" "$PORT")"; ISSUER="${ISSUER#IDP_ISSUER=}"
STATE="$HERE/run/rotation-$$.json"
"$PY" "$HERE/rotation_flow.py" phase1 "$ISSUER" "$STATE"

echo "== rotation: restart with a new signing key, old key inactive, 2 s access tokens"
t0=$(date +%s.%N)
"$HERE/stop.sh" "$PORT"
IDP_SIGNING_KEY="$NEW_KEY" IDP_INACTIVE_KEYS="$OLD_KEY" IDP_ACCESS_TOKEN_SECONDS=2 "$HERE/start.sh" "$PORT" >/dev/null
t1=$(date +%s.%N)
echo "OBSERVED warm restart (stop.sh + start.sh) wall time: $("$PY" -c "print(f'{$t1-$t0:.2f}s')")"
"$PY" "$HERE/rotation_flow.py" phase2 "$ISSUER" "$STATE"
rm -f "$STATE"
"$HERE/stop.sh" "$PORT"
rm -f "$HERE/run/idp-$PORT.log"
echo "ROTATION SMOKE PASSED"
