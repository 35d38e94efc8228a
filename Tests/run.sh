#!/usr/bin/env bash
# The test command of this repository (README.md): installs what is missing on
# Debian/Ubuntu, starts the test servers on 127.0.0.1 (Tests/providers.sh:
# PostgreSQL, django-oauth-toolkit, glewlwyd), runs every test, and stops what it
# started. Before the tests: the format lint (Scripts/format-lint.sh) and a check that
# the test build printed no warnings (Scripts/check-warnings.sh); under CI=true either
# fails the run, after the tests.
#
#   bash Tests/run.sh                 # everything
#   bash Tests/run.sh --filter JOSE   # extra arguments go to `swift test`
#
# Without Python the provider cannot start: the integration tests are then
# skipped (unit tests still run), except under CI=true, where that is an error.
# Likewise PostgreSQL (Tests/Postgres/start.sh on 127.0.0.1:$PG_PORT, default
# 5440) for OIDCPostgres's tests, which read PG_URL; set PG_URL to use a running server. And
# Redis (Tests/Redis/start.sh on 127.0.0.1:$REDIS_PORT, default 6390, TLS on the next port) for
# OIDCRedis's tests, which read REDIS_URL, REDIS_TLS_URL and REDIS_TLS_CA.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

log() { printf '==> %s\n' "$*" >&2; }

source Tests/providers.sh
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

# jwcrypto for the JWE interop tests (a venv under Tests/JOSETests/Fixtures/interop/); skipped when it cannot be set up.
if command -v python3 >/dev/null; then
    bash Tests/JOSETests/Fixtures/interop/jwcrypto-setup.sh || log "jwcrypto venv not set up: its interop tests are skipped"
    bash Tests/JOSETests/Fixtures/interop/jose2026-setup.sh || log "jose2026 venv not set up: its Ed25519/AKP interop tests are skipped"
fi
# PyPI's sd-jwt (the SD-JWT reference implementation) for CLISDJWTInteropTests (a venv under Tests/SDJWTInterop/).
if command -v python3 >/dev/null; then
    bash Tests/SDJWTInterop/sdjwt-setup.sh || log "sd-jwt venv not set up: its interop tests are skipped"
fi

# Seconds, no build: the format lint (Scripts/format-lint.sh, swift format lint --strict).
# A finding fails the run under CI=true, after the tests; elsewhere it is reported only.
log "format lint"
format_status=0
bash Scripts/format-lint.sh || format_status=$?
if [ "$format_status" != 0 ] && [ "${CI:-}" != true ]; then
    log "format lint findings (an error under CI=true): bash Scripts/format-fix.sh"
    format_status=0
fi

# Swift Testing only: XCTest is not run (it would print "Executed 0 tests"), so an XCTest
# test would be skipped without a word; none may exist.
if grep -rlE '^[[:space:]]*(@testable[[:space:]]+)?import[[:space:]]+XCTest' Tests Samples/hummingbird-app/Tests Samples/vapor-app/Tests --include='*.swift' >&2; then
    log "the files above import XCTest, which this suite does not run: write them with Swift Testing"
    exit 1
fi

log "building (debug, with tests)"
build_log=$(mktemp)
swift build --build-tests 2>&1 | tee "$build_log"
# No warnings in the test build (complete only from a clean .build, as in CI's fresh clone).
warnings_status=0
bash Scripts/check-warnings.sh "$build_log" || warnings_status=$?
rm -f "$build_log"
if [ "$warnings_status" != 0 ] && [ "${CI:-}" != true ]; then
    log "the build printed warnings (an error under CI=true)"
    warnings_status=0
fi

# The test servers (PostgreSQL, django-oauth-toolkit, glewlwyd): started here unless
# their variables are already set (.ci/run starts them once for every stage).
trap stop_providers EXIT
start_providers

log "running the tests"
test_log=$(mktemp)
status=0
swift test --skip-build --disable-xctest "$@" 2>&1 | tee "$test_log" || status=$?

# The OIDCRedis suites once more against Valkey 8 (the same RESP2 client and stores); a filtered run skips it.
valkey_status=0
if [ $# -eq 0 ] && [ -n "${VALKEY_URL:-}" ]; then
    valkey_version=$(redis-cli -u "$VALKEY_URL" INFO server 2>/dev/null | sed -n 's/^valkey_version:\([0-9.]*\).*/\1/p')
    if [ -z "$valkey_version" ]; then
        log "the server at VALKEY_URL is not Valkey"
        valkey_status=1
    else
        log "the OIDCRedis suites against Valkey $valkey_version"
        REDIS_URL=$VALKEY_URL REDIS_TLS_URL=$VALKEY_TLS_URL REDIS_TLS_CA=$VALKEY_TLS_CA \
            swift test --skip-build --disable-xctest --filter OIDCRedisTests 2>&1 | tee "$test_log.valkey" || valkey_status=$?
        log "Valkey $valkey_version: $(grep -E "^(✔|✘) Test run with [0-9]+ tests?" "$test_log.valkey" | tail -1 | sed -E 's/^(✔|✘) //')"
        rm -f "$test_log.valkey"
    fi
fi

# The sample web apps (each its own package) against the same providers, the same cases against both;
# a filtered run skips them.
app_status=0
vapor_status=0
if [ $# -eq 0 ]; then
    log "the Hummingbird sample app's tests"
    bash Samples/hummingbird-app/Tests/run.sh || app_status=$?
    log "the Vapor sample app's tests (the same cases)"
    APP=vapor bash Samples/hummingbird-app/Tests/run.sh || vapor_status=$?
fi

# One summary line per test server and the test counts, whatever the outcome.
provider_summary
counts=$(grep -E "^(✔|✘) Test run with [0-9]+ tests?" "$test_log" | tail -1 | sed -E 's/^(✔|✘) //' || true)
log "tests: ${counts:-no Swift Testing summary}"
[ "$format_status" = 0 ] || log "format lint: FAILED (findings listed before the build)"
[ "$warnings_status" = 0 ] || log "build warnings: FAILED (the test build printed warnings, listed after the build)"
[ $# -eq 0 ] && log "hummingbird-app: $([ "$app_status" = 0 ] && echo passed || echo "FAILED ($app_status)")"
[ $# -eq 0 ] && [ -n "${VALKEY_URL:-}" ] && log "OIDCRedis against Valkey: $([ "$valkey_status" = 0 ] && echo passed || echo "FAILED ($valkey_status)")"
[ $# -eq 0 ] && log "vapor-app: $([ "$vapor_status" = 0 ] && echo passed || echo "FAILED ($vapor_status)")"
rm -f "$test_log"
[ "$status" = 0 ] || exit "$status"
[ "$app_status" = 0 ] || exit "$app_status"
[ "$vapor_status" = 0 ] || exit "$vapor_status"
[ "$valkey_status" = 0 ] || exit "$valkey_status"
[ "$format_status" = 0 ] || exit "$format_status"
exit "$warnings_status"
