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
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

log() { printf '==> %s\n' "$*" >&2; }

install_packages() {
    local missing=()
    pkg-config --exists libcrypto 2>/dev/null || missing+=(libssl-dev)
    pkg-config --exists libssl 2>/dev/null || missing+=(libssl-dev)
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

# Seconds, no build: platform guards (macOS must compile) and declared imports.
if command -v python3 >/dev/null; then
    log "portability check"
    bash Tests/Portability/check.sh
elif [ "${CI:-}" = true ]; then
    log "python3 is required under CI for the portability check"
    exit 1
else
    log "python3 missing: portability check skipped"
fi

log "building (debug, with tests)"
swift build --build-tests

IDP_PORT=${IDP_PORT:-9400}
started_idp=0
cleanup() {
    if [ "$started_idp" = 1 ]; then
        bash "$root/Tests/IdP/stop.sh" "$IDP_PORT" >/dev/null 2>&1 || true
    fi
}
trap cleanup EXIT

if [ -z "${IDP_ISSUER:-}" ]; then
    if command -v python3 >/dev/null; then
        log "starting the test OpenID provider on 127.0.0.1:$IDP_PORT"
        if out=$(bash Tests/IdP/start.sh "$IDP_PORT"); then
            started_idp=1
            IDP_ISSUER=$(printf '%s\n' "$out" | sed -n 's/^IDP_ISSUER=//p')
            export IDP_ISSUER
            log "provider up: $IDP_ISSUER"
        elif [ "${CI:-}" = true ]; then
            log "the test OpenID provider did not start (required under CI)"
            exit 1
        else
            log "the test OpenID provider did not start: integration tests will be skipped"
        fi
    elif [ "${CI:-}" = true ]; then
        log "python3 is required under CI for the integration tests"
        exit 1
    fi
fi

log "running the tests"
swift test --skip-build "$@"
