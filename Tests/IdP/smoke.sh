#!/usr/bin/env bash
# End-to-end smoke test of the test IdP: starts it on a free loopback port,
# runs smoke_flow.py (stdlib only: discovery, PKCE login via login.py, code
# exchange with client_secret_basic and client_secret_post, userinfo, refresh
# rotation, revocation, introspection, error cases), then rotation_flow.py
# (key rotation + access-token expiry, via rotation-smoke.sh) and stops.
# Exits non-zero if any step fails. Usage: ./smoke.sh [--no-rotation]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
HERE="$(pwd)"
PY="${IDP_SMOKE_PYTHON:-python3}"   # any Python >= 3.8; only the stdlib is used

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

PORT="$(free_port)"
trap '"$HERE/stop.sh" "$PORT" || true' EXIT

echo "== smoke: starting IdP on 127.0.0.1:$PORT"
t0=$(date +%s.%N)
OUT="$("$HERE/start.sh" "$PORT")"
t1=$(date +%s.%N)
echo "$OUT"
echo "OBSERVED start.sh wall time: $("$PY" -c "print(f'{$t1-$t0:.2f}s')")"
ISSUER="${OUT#IDP_ISSUER=}"
[[ "$OUT" == IDP_ISSUER=* && "$ISSUER" == "http://127.0.0.1:$PORT/o" ]] || { echo "smoke: unexpected start.sh output: $OUT" >&2; exit 1; }

"$PY" "$HERE/smoke_flow.py" "$ISSUER"
"$HERE/stop.sh" "$PORT"
trap - EXIT
rm -f "$HERE/run/idp-$PORT.log"
[[ ! -f "$HERE/run/idp-$PORT.pid" ]] || { echo "smoke: PID file left behind" >&2; exit 1; }

if [[ "${1:-}" != "--no-rotation" ]]; then
    "$HERE/rotation-smoke.sh"
fi
echo "SMOKE PASSED"
