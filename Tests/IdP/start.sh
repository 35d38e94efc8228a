#!/usr/bin/env bash
# Start the test IdP (gunicorn, background) on 127.0.0.1:PORT.
# Usage: ./start.sh [PORT]      PORT defaults to $IDP_PORT, then 9400.
# On success prints exactly one stdout line:  IDP_ISSUER=http://127.0.0.1:PORT/o
# Everything else goes to stderr. Log: run/idp-PORT.log, PID: run/idp-PORT.pid.
# If an IdP started by this script already runs on PORT it is stopped first
# (so a restart picks up new env, e.g. rotated keys).
# Env passed through: IDP_SIGNING_KEY, IDP_INACTIVE_KEYS, IDP_ACCESS_TOKEN_SECONDS,
#   IDP_ID_TOKEN_SECONDS, IDP_REFRESH_REUSE_PROTECTION, IDP_ISSUER_OVERRIDE,
#   IDP_EXTRA_SETTINGS_JSON, IDP_WORKERS (default 2), IDP_START_TIMEOUT (default 30 s).
set -euo pipefail

# Make caller-relative key paths absolute before changing directory.
abspath() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$(pwd)" "$1" ;; esac; }
if [[ -n "${IDP_SIGNING_KEY:-}" ]]; then IDP_SIGNING_KEY="$(abspath "$IDP_SIGNING_KEY")"; export IDP_SIGNING_KEY; fi
if [[ -n "${IDP_INACTIVE_KEYS:-}" ]]; then
    _abs=()
    IFS=':' read -r -a _keys <<< "$IDP_INACTIVE_KEYS"
    for k in "${_keys[@]}"; do [[ -n "$k" ]] && _abs+=("$(abspath "$k")"); done
    IDP_INACTIVE_KEYS="$(IFS=':'; printf '%s' "${_abs[*]:-}")"; export IDP_INACTIVE_KEYS
fi

cd "$(dirname "${BASH_SOURCE[0]}")"
HERE="$(pwd)"

PORT="${1:-${IDP_PORT:-9400}}"
if ! [[ "$PORT" =~ ^[0-9]+$ ]] || (( PORT < 1 || PORT > 65535 )); then
    echo "start.sh: invalid port '$PORT'" >&2
    exit 2
fi
export IDP_PORT="$PORT"

RUN="$HERE/run"
LOG="$RUN/idp-$PORT.log"
PIDFILE="$RUN/idp-$PORT.pid"
mkdir -p "$RUN"

want="$(cat "$HERE/requirements.txt" "$HERE/idp/management/commands/idp_fixtures.py" | sha256sum | cut -d' ' -f1)"
if [[ ! -x "$HERE/.venv/bin/gunicorn" || ! -f "$RUN/idp.sqlite3" \
      || "$(cat "$HERE/.venv/.requirements.sha256" 2>/dev/null)" != "$want" ]]; then
    echo "start.sh: running setup.sh (venv, DB or requirements out of date)" >&2
    "$HERE/setup.sh" >&2
fi

if [[ -f "$PIDFILE" ]]; then
    echo "start.sh: $PIDFILE exists; stopping the previous instance first" >&2
    "$HERE/stop.sh" "$PORT" >&2
fi

: > "$LOG"
# stdin/stdout/stderr detached so that callers reading our pipes are not held open.
nohup "$HERE/.venv/bin/gunicorn" \
    --bind "127.0.0.1:$PORT" \
    --workers "${IDP_WORKERS:-2}" \
    --timeout 60 --graceful-timeout 5 \
    --chdir "$HERE" \
    --access-logfile - --error-logfile - --capture-output \
    --no-control-socket \
    --name "test-idp-$PORT" \
    idp.wsgi:application </dev/null >>"$LOG" 2>&1 &
PID=$!
echo "$PID" > "$PIDFILE"

URL="http://127.0.0.1:$PORT/o/.well-known/openid-configuration"
if "$HERE/.venv/bin/python" - "$URL" "$PID" "${IDP_START_TIMEOUT:-30}" <<'PY'
import os, sys, time, urllib.request, urllib.error
url, pid, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
deadline = time.monotonic() + timeout
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        print(f"start.sh: gunicorn (pid {pid}) exited", file=sys.stderr)
        sys.exit(1)
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except (urllib.error.URLError, OSError):
        pass
    time.sleep(0.2)
print(f"start.sh: {url} did not answer 200 within {timeout:g}s", file=sys.stderr)
sys.exit(1)
PY
then
    if [[ -n "${IDP_ISSUER_OVERRIDE:-}" ]]; then
        echo "IDP_ISSUER=$IDP_ISSUER_OVERRIDE"
    else
        echo "IDP_ISSUER=http://127.0.0.1:$PORT/o"
    fi
else
    echo "start.sh: failed to start the IdP on port $PORT; last lines of $LOG:" >&2
    tail -n 40 "$LOG" >&2 || true
    "$HERE/stop.sh" "$PORT" >&2 || true
    exit 1
fi
