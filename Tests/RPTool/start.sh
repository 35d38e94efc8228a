#!/usr/bin/env bash
# Start the OpenID Foundation's relying-party test tool (oidctest 0.8.2's RP test server, the
# folder vendored under vendor/rp) on 127.0.0.1:PORT, plain http.
#
#   bash Tests/RPTool/start.sh [PORT]     # PORT defaults to $RPTOOL_PORT, then 8090
#
# stdout on success, exactly one line: RPTOOL_BASE=http://127.0.0.1:PORT
# (each test is its own provider at RPTOOL_BASE/<rp_id>/<test_id>). Everything else goes to stderr.
# Needs Python 3.7 (oic 1.1.0 and oidctest 0.8.2 do not run on 3.10+): $RPTOOL_PYTHON, else
# python3.7 on PATH, else pyenv's /root/.pyenv/versions/3.7.*/bin/python3.7. The venv (.venv,
# ignored by git) is made from requirements.txt (PyPI) when missing or out of date.
# Run directory run/PORT: the server's working folder (links to vendor/rp, generated keys,
# logs), rptool.log, rptool.pid. An instance this script started on PORT is stopped first.
# Env: RPTOOL_START_TIMEOUT (default 60 s).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
HERE="$(pwd)"

PORT="${1:-${RPTOOL_PORT:-8090}}"
if ! [[ "$PORT" =~ ^[0-9]+$ ]] || (( PORT < 1 || PORT > 65535 )); then
    echo "start.sh: invalid port '$PORT'" >&2
    exit 2
fi

find_python() {
    local candidate
    for candidate in "${RPTOOL_PYTHON:-}" "$(command -v python3.7 || true)" /root/.pyenv/versions/3.7.*/bin/python3.7; do
        [[ -n "$candidate" && -x "$candidate" ]] || continue
        # pyenv's shim exists even when 3.7 is not the selected version: ask the interpreter itself.
        if "$candidate" -c 'import sys, venv; sys.exit(0 if sys.version_info[:2] == (3, 7) else 1)' 2>/dev/null; then
            printf '%s' "$candidate"
            return 0
        fi
    done
    return 1
}

VENV="$HERE/.venv"
RUN="$HERE/run/$PORT"
mkdir -p "$HERE/run"

# Serialise concurrent setups (two runs starting the tool at once).
if command -v flock >/dev/null 2>&1; then
    exec 9>"$HERE/run/.setup.lock"
    flock -w 600 9
fi
want="$(cat "$HERE/requirements.txt" | sha256sum | cut -d' ' -f1)"
if [[ ! -x "$VENV/bin/python" || "$(cat "$VENV/.requirements.sha256" 2>/dev/null)" != "$want" ]]; then
    if ! PY="$(find_python)"; then
        echo "start.sh: Python 3.7 not found (set RPTOOL_PYTHON, or e.g. pyenv install 3.7.16)" >&2
        exit 1
    fi
    echo "start.sh: making $VENV with $PY from requirements.txt" >&2
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "pip<24.1" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --no-deps -r "$HERE/requirements.txt" >&2
    echo "$want" > "$VENV/.requirements.sha256"
fi
if command -v flock >/dev/null 2>&1; then flock -u 9; fi

if [[ -f "$RUN/rptool.pid" ]]; then
    echo "start.sh: an instance runs on $PORT; stopping it first" >&2
    "$HERE/stop.sh" "$PORT" >&2
fi
rm -rf "$RUN"
mkdir -p "$RUN/static"
# The server's working folder: the vendored files by link (never written), static/ its own
# (the server writes its JWK Sets there), keys/ and logs made at start.
for entry in "$HERE"/vendor/rp/*; do
    name="$(basename "$entry")"
    [[ "$name" == static ]] || ln -s "$entry" "$RUN/$name"
done
for entry in "$HERE"/vendor/rp/static/*; do ln -s "$entry" "$RUN/static/"; done
ln -s "$HERE/rptool_conf.py" "$RUN/rptool_conf.py"

: > "$RUN/rptool.log"
# Detached stdin/stdout/stderr, so callers reading our pipes are not held open.
(cd "$RUN" && exec nohup "$VENV/bin/python" "$HERE/launcher.py" server.py -f flows -p "$PORT" rptool_conf \
    </dev/null >>"$RUN/rptool.log" 2>&1) &
echo "$!" > "$RUN/rptool.pid"

URL="http://127.0.0.1:$PORT/rptool-probe/rp-response_type-code/.well-known/openid-configuration"
if "$VENV/bin/python" - "$URL" "$(cat "$RUN/rptool.pid")" "${RPTOOL_START_TIMEOUT:-60}" <<'PY'
import json, os, sys, time, urllib.request, urllib.error
url, pid, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
deadline = time.monotonic() + timeout
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        print("start.sh: the RP test tool (pid %d) exited" % pid, file=sys.stderr)
        sys.exit(1)
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            if r.status == 200 and json.load(r).get("registration_endpoint"):
                sys.exit(0)
    except (urllib.error.URLError, OSError, ValueError):
        pass
    time.sleep(0.2)
print("start.sh: %s did not answer within %gs" % (url, timeout), file=sys.stderr)
sys.exit(1)
PY
then
    echo "RPTOOL_BASE=http://127.0.0.1:$PORT"
else
    echo "start.sh: the RP test tool on port $PORT did not come up; last lines of $RUN/rptool.log:" >&2
    tail -n 40 "$RUN/rptool.log" >&2 || true
    "$HERE/stop.sh" "$PORT" >&2 || true
    exit 1
fi
