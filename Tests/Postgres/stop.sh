#!/usr/bin/env bash
# Stop the PostgreSQL server that start.sh started on PORT and remove its directory.
# Usage: stop.sh PORT. Idempotent: nothing recorded for PORT -> exit 0.
set -euo pipefail
PORT="${1:-}"
if ! [[ "$PORT" =~ ^[0-9]+$ ]]; then echo "stop.sh: usage: stop.sh PORT" >&2; exit 2; fi
STATEFILE="${TMPDIR:-/tmp}/oidc-pg-$PORT.dir"
[[ -f "$STATEFILE" ]] || exit 0
DIR="$(head -n 1 "$STATEFILE")"
# Only ever touch a directory this script made.
case "$DIR" in "${TMPDIR:-/tmp}/oidc-pg-$PORT."*) ;; *) echo "stop.sh: unexpected directory '$DIR' in $STATEFILE" >&2; exit 1 ;; esac
if [[ -f "$DIR/data/postmaster.pid" ]]; then
    BIN=""
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do [[ -x "$d/pg_ctl" ]] && { BIN="$d"; break; }; done
    [[ -n "$BIN" ]] || BIN="$(dirname "$(command -v pg_ctl)")"
    if [[ "$(id -u)" = 0 ]]; then
        runuser -u "$(stat -c %U "$DIR")" -- "$BIN/pg_ctl" -D "$DIR/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    else
        "$BIN/pg_ctl" -D "$DIR/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    fi
    # If it still runs (pg_ctl failed), kill the postmaster recorded in its pid file.
    PID="$(head -n 1 "$DIR/data/postmaster.pid" 2>/dev/null | tr -dc '0-9' || true)"
    if [[ -n "$PID" ]] && [[ "$(cat /proc/$PID/comm 2>/dev/null)" == postgres ]]; then
        kill -TERM "$PID" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$PID" 2>/dev/null || true
    fi
fi
rm -rf "$DIR"
rm -f "$STATEFILE"
