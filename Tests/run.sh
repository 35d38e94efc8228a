#!/usr/bin/env bash
# The test command of this repository (README.md): installs what is missing on
# Debian/Ubuntu, starts the test OpenID provider on 127.0.0.1, runs every test,
# and stops what it started.
#
#   bash Tests/run.sh                 # everything
#   bash Tests/run.sh --filter JOSE   # extra arguments go to `swift test`
#
# Without Python the provider cannot start: the integration tests are then
# skipped (unit tests still run), except under CI=true, where that is an error.
# Likewise PostgreSQL (Tests/Postgres/start.sh on 127.0.0.1:$PG_PORT, default
# 5440) for OIDCPostgres's tests, which read PG_URL; set PG_URL to use a running server.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

log() { printf '==> %s\n' "$*" >&2; }

install_packages() {
    local missing=()
    pkg-config --exists libcrypto 2>/dev/null || missing+=(libssl-dev)
    pkg-config --exists libssl 2>/dev/null || missing+=(libssl-dev)
    pkg-config --exists libpq 2>/dev/null || missing+=(libpq-dev)
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || missing+=(postgresql)
    command -v pkg-config >/dev/null || missing+=(pkg-config)
    command -v openssl >/dev/null || missing+=(openssl)
    command -v python3 >/dev/null || missing+=(python3 python3-venv)
    if command -v python3 >/dev/null && ! python3 -c 'import venv, ensurepip' 2>/dev/null; then missing+=(python3-venv); fi
    [ ${#missing[@]} -eq 0 ] && return 0
    # De-duplicate.
    mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        log "installing: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        log "missing packages: ${missing[*]} (install them, e.g. sudo apt-get install ${missing[*]})"
        return 1
    fi
}

install_packages

log "building (debug, with tests)"
swift build --build-tests

IDP_PORT=${IDP_PORT:-9400}
PG_PORT=${PG_PORT:-5440}
started=()
cleanup() {
    local server
    for server in "${started[@]}"; do bash "$root/Tests/${server%%:*}/stop.sh" "${server##*:}" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

# start_server WHAT DIR PORT VARIABLE: runs Tests/DIR/start.sh PORT and exports every
# NAME=value line it prints (VARIABLE among them). A server that does not start is an
# error under CI=true; otherwise the tests that need it are skipped.
start_server() {
    local what=$1 dir=$2 port=$3 variable=$4 out name value
    log "starting $what on 127.0.0.1:$port"
    if out=$(bash "Tests/$dir/start.sh" "$port"); then
        started+=("$dir:$port")
        while IFS='=' read -r name value; do
            [[ "$name" =~ ^[A-Z][A-Z0-9_]*$ ]] && export "$name=$value"
        done <<< "$out"
        log "$what up: ${!variable}"
    elif [ "${CI:-}" = true ]; then
        log "$what did not start (required under CI)"
        exit 1
    else
        log "$what did not start: the tests that need it will be skipped"
    fi
}

# PostgreSQL for OIDCPostgres's tests, unless PG_URL is given.
[ -n "${PG_URL:-}" ] || start_server PostgreSQL Postgres "$PG_PORT" PG_URL

if [ -z "${IDP_ISSUER:-}" ]; then
    if command -v python3 >/dev/null; then
        start_server "the test OpenID provider" IdP "$IDP_PORT" IDP_ISSUER
    elif [ "${CI:-}" = true ]; then
        log "python3 is required under CI for the integration tests"
        exit 1
    fi
fi

log "running the tests"
swift test --skip-build "$@"
