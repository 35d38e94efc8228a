#!/usr/bin/env bash
# Stop the RP test tool that start.sh started on PORT (default $RPTOOL_PORT, then 8090) and its TLS
# instance ($RPTOOL_TLS_PORT, default PORT+1): the processes in run/*/rptool.pid, if they are still
# our launcher. Idempotent.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
HERE="$(pwd)"
PORT="${1:-${RPTOOL_PORT:-8090}}"
stop_one() {
    local port=$1 pidfile="$HERE/run/$1/rptool.pid" pid
    [[ -f "$pidfile" ]] || return 0
    pid="$(tr -dc '0-9' < "$pidfile")"
    # Guard against PID reuse: only our launcher, for this port.
    if [[ -n "$pid" ]] && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "launcher.py server.py -f flows -p $port "; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
        if alive "$pid"; then
            echo "stop.sh: the RP test tool ($pid) did not exit on TERM; sending KILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$pidfile"
}
alive() { kill -0 "$1" 2>/dev/null && [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != "Z" ]]; }
# The request-object host (run/PORT/objects.pid), if it is still our http.server.
stop_objects() {
    local pidfile="$HERE/run/$PORT/objects.pid" pid
    [[ -f "$pidfile" ]] || return 0
    pid="$(tr -dc '0-9' < "$pidfile")"
    if [[ -n "$pid" ]] && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "http.server --bind 127.0.0.1 --directory $HERE/run/$PORT/request-objects "; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
        alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
}
stop_objects
stop_one "$PORT"
stop_one "${RPTOOL_TLS_PORT:-$((PORT + 1))}"
