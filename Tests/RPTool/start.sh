#!/usr/bin/env bash
# Start the OpenID Foundation's relying-party test tool (oidctest 0.8.2's RP test server, the
# folder vendored under vendor/rp) on 127.0.0.1: plain http on PORT, and a TLS instance on
# $RPTOOL_TLS_PORT (default PORT+1) with a certificate for 127.0.0.1 signed by a test CA made at
# start (WebFinger queries are always https).
#
#   bash Tests/RPTool/start.sh [PORT]     # PORT defaults to $RPTOOL_PORT, then 8090
#
# stdout on success: RPTOOL_BASE=http://127.0.0.1:PORT, RPTOOL_TLS_BASE=https://127.0.0.1:TLS_PORT,
# RPTOOL_TLS_CA=<the test CA's PEM> (each test is its own provider at BASE/<rp_id>/<test_id>),
# RPTOOL_OBJECTS_BASE=http://127.0.0.1:OBJECTS_PORT and RPTOOL_OBJECTS_DIR: a static server
# ($RPTOOL_OBJECTS_PORT, default PORT+2) for the request objects a test passes by reference.
# Everything else goes to stderr.
# Needs Python 3.7 (oic 1.1.0 and oidctest 0.8.2 do not run on 3.10+): $RPTOOL_PYTHON, else
# python3.7 on PATH, else pyenv's /root/.pyenv/versions/3.7.*/bin/python3.7. The venv (.venv,
# ignored by git) is made from requirements.txt (PyPI) when missing or out of date.
# Run directory run/PORT (and run/TLS_PORT): the server's working folder (links to vendor/rp,
# generated keys, logs, tls/), rptool.log, rptool.pid. Instances this script started on those
# ports are stopped first; stop.sh PORT stops all three.
# Env: RPTOOL_START_TIMEOUT (default 180 s: under load the tool took over 60 s to answer).
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

# wait_for URL PID WHAT [CA]: until URL answers 200 (a discovery document must hold registration_endpoint),
# while PID lives, within $RPTOOL_START_TIMEOUT (default 180 s: under load the tool took over 60 s to answer).
wait_for() {
    "$VENV/bin/python" - "$1" "$2" "${RPTOOL_START_TIMEOUT:-180}" "$3" "${4:-}" <<'PY'
import json, os, ssl, sys, time, urllib.request, urllib.error
url, pid, timeout, what, ca = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
context = ssl.create_default_context(cafile=ca) if ca else None
deadline = time.monotonic() + timeout
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        print("start.sh: %s (pid %d) exited" % (what, pid), file=sys.stderr)
        sys.exit(1)
    try:
        with urllib.request.urlopen(url, timeout=5, context=context) as r:
            if r.status == 200 and (not url.endswith("/openid-configuration") or json.load(r).get("registration_endpoint")):
                sys.exit(0)
    except (urllib.error.URLError, OSError, ValueError):
        pass
    time.sleep(0.2)
print("start.sh: %s did not answer within %gs" % (url, timeout), file=sys.stderr)
sys.exit(1)
PY
}

# start_instance PORT CONF [-t]: one tool process in run/PORT, waited for; prints nothing on stdout.
start_instance() {
    local port=$1 conf=$2 tls=${3:-} run="$HERE/run/$1" scheme=http entry name
    if [[ -f "$run/rptool.pid" ]]; then
        echo "start.sh: an instance runs on $port; stopping it first" >&2
        "$HERE/stop.sh" "$port" >&2
    fi
    rm -rf "$run"
    mkdir -p "$run/static"
    # The server's working folder: the vendored files by link (never written), static/ its own
    # (the server writes its JWK Sets there), keys/ and logs made at start.
    for entry in "$HERE"/vendor/rp/*; do
        name="$(basename "$entry")"
        [[ "$name" == static ]] || ln -s "$entry" "$run/$name"
    done
    for entry in "$HERE"/vendor/rp/static/*; do ln -s "$entry" "$run/static/"; done
    ln -s "$HERE/$conf.py" "$run/$conf.py"
    if [[ -n "$tls" ]]; then
        scheme=https
        mkdir -p "$run/tls"
        # A test CA and a certificate for 127.0.0.1 it signs (CA: run/PORT/tls/ca.crt).
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=RP tool test CA" \
            -keyout "$run/tls/ca.key" -out "$run/tls/ca.crt" 2>/dev/null
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
            -keyout "$run/tls/server.key" -out "$run/tls/server.csr" 2>/dev/null
        printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > "$run/tls/ext"
        openssl x509 -req -in "$run/tls/server.csr" -CA "$run/tls/ca.crt" -CAkey "$run/tls/ca.key" -CAcreateserial \
            -days 2 -extfile "$run/tls/ext" -out "$run/tls/server.crt" 2>/dev/null
    fi
    : > "$run/rptool.log"
    # Detached stdin/stdout/stderr, so callers reading our pipes are not held open.
    (cd "$run" && exec nohup "$VENV/bin/python" "$HERE/launcher.py" server.py -f flows -p "$port" $tls "$conf" \
        </dev/null >>"$run/rptool.log" 2>&1) &
    echo "$!" > "$run/rptool.pid"

    local url="$scheme://127.0.0.1:$port/rptool-probe/rp-response_type-code/.well-known/openid-configuration"
    if ! wait_for "$url" "$(cat "$run/rptool.pid")" "the RP test tool" "${tls:+$run/tls/ca.crt}"
    then
        echo "start.sh: the RP test tool on port $port did not come up; last lines of $run/rptool.log:" >&2
        tail -n 40 "$run/rptool.log" >&2 || true
        "$HERE/stop.sh" "$port" >&2 || true
        return 1
    fi
}

TLS_PORT="${RPTOOL_TLS_PORT:-$((PORT + 1))}"
start_instance "$PORT" rptool_conf || exit 1
if ! start_instance "$TLS_PORT" rptool_tls_conf -t; then
    "$HERE/stop.sh" "$PORT" >&2 || true
    exit 1
fi
# The request-object host: what a relying party serves for request_uri (OpenID Connect Core §6.2). A
# static server on OBJECTS_PORT for the files a test writes into run/PORT/request-objects.
OBJECTS_PORT="${RPTOOL_OBJECTS_PORT:-$((PORT + 2))}"
OBJECTS_DIR="$HERE/run/$PORT/request-objects"
mkdir -p "$OBJECTS_DIR"
(cd "$OBJECTS_DIR" && exec nohup "$VENV/bin/python" -m http.server --bind 127.0.0.1 --directory "$OBJECTS_DIR" "$OBJECTS_PORT" \
    </dev/null >>"$HERE/run/$PORT/objects.log" 2>&1) &
echo "$!" > "$HERE/run/$PORT/objects.pid"
echo ready > "$OBJECTS_DIR/ready"
if ! wait_for "http://127.0.0.1:$OBJECTS_PORT/ready" "$(cat "$HERE/run/$PORT/objects.pid")" "the request-object host"
then
    tail -n 20 "$HERE/run/$PORT/objects.log" >&2 || true
    "$HERE/stop.sh" "$PORT" >&2 || true
    exit 1
fi
echo "RPTOOL_BASE=http://127.0.0.1:$PORT"
echo "RPTOOL_TLS_BASE=https://127.0.0.1:$TLS_PORT"
echo "RPTOOL_TLS_CA=$HERE/run/$TLS_PORT/tls/ca.crt"
echo "RPTOOL_OBJECTS_BASE=http://127.0.0.1:$OBJECTS_PORT"
echo "RPTOOL_OBJECTS_DIR=$OBJECTS_DIR"
