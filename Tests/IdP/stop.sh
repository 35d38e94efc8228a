#!/usr/bin/env bash
# Stop the test IdP started by start.sh on PORT (default $IDP_PORT, then 9400).
# Kills the gunicorn master from run/idp-PORT.pid and its workers, waits until
# they are gone, removes the PID file. Idempotent: no PID file -> exit 0.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
HERE="$(pwd)"

PORT="${1:-${IDP_PORT:-9400}}"
PIDFILE="$HERE/run/idp-$PORT.pid"
[[ -f "$PIDFILE" ]] || exit 0
PID="$(tr -dc '0-9' < "$PIDFILE")"
if [[ -z "$PID" ]]; then rm -f "$PIDFILE"; exit 0; fi

# Guard against PID reuse: only touch it if it is our gunicorn for this port.
ours() {
    [[ -r "/proc/$1/cmdline" ]] && tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null | grep -q "gunicorn.*127.0.0.1:$PORT"
}
children() {  # direct children of $1, from /proc (no procps needed)
    local f
    for f in /proc/[0-9]*/stat; do
        local s; s="$(cat "$f" 2>/dev/null)" || continue
        s="${s##*) }"; set -- $s
        if [[ "${2:-}" == "$PID" ]]; then f="${f#/proc/}"; echo "${f%/stat}"; fi
    done
    return 0
}
alive() { kill -0 "$1" 2>/dev/null && [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != "Z" ]]; }

if ours "$PID"; then
    WORKERS="$(children)"
    kill -TERM "$PID" 2>/dev/null || true
    for _ in $(seq 1 100); do   # up to 10 s for a graceful stop
        alive "$PID" || break
        sleep 0.1
    done
    if alive "$PID"; then
        echo "stop.sh: gunicorn $PID did not exit on TERM; sending KILL" >&2
        kill -KILL "$PID" 2>/dev/null || true
    fi
    for w in $WORKERS; do
        for _ in $(seq 1 50); do alive "$w" || break; sleep 0.1; done
        if alive "$w"; then kill -KILL "$w" 2>/dev/null || true; fi
    done
    for _ in $(seq 1 50); do alive "$PID" || break; sleep 0.1; done
fi
rm -f "$PIDFILE"
