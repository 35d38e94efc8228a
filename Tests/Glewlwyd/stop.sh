#!/usr/bin/env bash
# Stop the glewlwyd that start.sh started on PORT (default $GLEWLWYD_PORT, then 4593).
# Only the process in run/PORT/glewlwyd.pid, and only if it is a glewlwyd; waits until it
# is gone. The run directory stays (log, env) for inspection. Idempotent.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
PORT="${1:-${GLEWLWYD_PORT:-4593}}"
PIDFILE="$(pwd)/run/$PORT/glewlwyd.pid"
[[ -f "$PIDFILE" ]] || exit 0
PID="$(tr -dc '0-9' < "$PIDFILE")"
alive() { kill -0 "$1" 2>/dev/null && [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != "Z" ]]; }
if [[ -n "$PID" ]] && tr '\0' ' ' < "/proc/$PID/cmdline" 2>/dev/null | grep -q '^glewlwyd --env-variables'; then
    kill -TERM "$PID" 2>/dev/null || true
    for _ in $(seq 1 100); do alive "$PID" || break; sleep 0.1; done
    if alive "$PID"; then
        echo "stop.sh: glewlwyd $PID did not exit on TERM; sending KILL" >&2
        kill -KILL "$PID" 2>/dev/null || true
    fi
fi
rm -f "$PIDFILE"
