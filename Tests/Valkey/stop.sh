#!/usr/bin/env bash
# Stop the Valkey server that start.sh started on PORT and remove its directory.
# Usage: stop.sh PORT. Idempotent: nothing recorded for PORT -> exit 0.
set -euo pipefail
PORT="${1:-}"
if ! [[ "$PORT" =~ ^[0-9]+$ ]]; then echo "stop.sh: usage: stop.sh PORT" >&2; exit 2; fi
STATEFILE="${TMPDIR:-/tmp}/oidc-valkey-$PORT.dir"
[[ -f "$STATEFILE" ]] || exit 0
DIR="$(head -n 1 "$STATEFILE")"
# Only ever touch a directory this script made.
case "$DIR" in "${TMPDIR:-/tmp}/oidc-valkey-$PORT."*) ;; *) echo "stop.sh: unexpected directory '$DIR' in $STATEFILE" >&2; exit 1 ;; esac
PID="$(head -n 1 "$DIR/valkey.pid" 2>/dev/null | tr -dc '0-9' || true)"
if [[ -n "$PID" ]] && [[ "$(cat /proc/$PID/comm 2>/dev/null)" == valkey-server* ]]; then
    kill -TERM "$PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$PID" 2>/dev/null || true
fi
rm -rf "$DIR"
rm -f "$STATEFILE"
