#!/usr/bin/env bash
# Stop the RP test tool that start.sh started on PORT (default $RPTOOL_PORT, then 8090): the
# process in run/PORT/rptool.pid, if it is still our launcher. Idempotent.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
HERE="$(pwd)"
PORT="${1:-${RPTOOL_PORT:-8090}}"
PIDFILE="$HERE/run/$PORT/rptool.pid"
[[ -f "$PIDFILE" ]] || exit 0
PID="$(tr -dc '0-9' < "$PIDFILE")"
alive() { kill -0 "$1" 2>/dev/null && [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != "Z" ]]; }
# Guard against PID reuse: only our launcher, for this port.
if [[ -n "$PID" ]] && tr '\0' ' ' < "/proc/$PID/cmdline" 2>/dev/null | grep -q "launcher.py server.py -f flows -p $PORT "; then
    kill -TERM "$PID" 2>/dev/null || true
    for _ in $(seq 1 100); do alive "$PID" || break; sleep 0.1; done
    if alive "$PID"; then
        echo "stop.sh: the RP test tool ($PID) did not exit on TERM; sending KILL" >&2
        kill -KILL "$PID" 2>/dev/null || true
    fi
fi
rm -f "$PIDFILE"
