#!/usr/bin/env bash
# The tests of the sample web apps, Samples/hummingbird-app (APP=hummingbird, the default) and
# Samples/vapor-app (APP=vapor): the SAME cases against either (called twice by the repository's
# Tests/run.sh after `swift test`, with the test providers running: IDP_ISSUER, GLEWLWYD_*, PG_URL, REDIS_*,
# VALKEY_URL exported). The mcp and ssf parts need hummingbird-app's --mcp and --ssf-* (vapor-app refuses them).
#
#   [APP=hummingbird|vapor] bash Samples/hummingbird-app/Tests/run.sh
#       [--only cli|browser|replicas|redis|glewlwyd|mtls|request-object|ssf|ssf-poll|ssf-replicas|mcp]...
#
# Builds the app's package ONCE (debug): the app, its unit tests (run first with `swift test`: Tests/HummingbirdAppTests,
# Samples/vapor-app/Tests/VaporAppTests) and NameClashCheck, the target that compiles
# a file importing the framework (Hummingbird, HTTPTypes, Logging, AsyncHTTPClient; Vapor and what it re-exports)
# and every toolkit module with the ecosystem's names unqualified (a name clash fails the build, hence this script).
# Then app_tests.py: a headless Chromium login through django-oauth-toolkit's own form (selenium
# in the repository's ignored .venv-hbapp), /upstream after expiry (one refresh), /logout; two
# instances on one PostgreSQL, then on one Redis (redis:// and rediss://) and one Valkey; glewlwyd's RFC 9068 tokens,
# challenges and back-channel logout; glewlwyd fetching the login's request object from the app (--request-object
# by-reference); the MCP endpoint (--mcp) called by the Python MCP SDK (PyPI `mcp`, in Tests/.venv-mcp made by mcp-setup.sh).
# A missing prerequisite skips its part with a message; under CI=true it is an error.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
name="${APP:-hummingbird}-app"
case "$name" in
    hummingbird-app | vapor-app) ;;
    *) printf 'APP: hummingbird or vapor, not %s\n' "${APP:-}" >&2; exit 2 ;;
esac
app="$root/Samples/$name"
log() { printf '==> %s: %s\n' "$name" "$*" >&2; }
missing() {
    if [ "${CI:-}" = true ]; then log "$* (required under CI=true)"; exit 1; fi
    log "$*: skipped"; exit 0
}

command -v swift >/dev/null || missing "swift is not installed"
command -v python3 >/dev/null || missing "python3 is not installed"

log "building the app package (debug, once)"
started=$(date +%s)
(cd "$app" && swift build --build-tests)
log "built in $(( $(date +%s) - started )) s"
log "unit tests (swift test)"
(cd "$app" && swift test --skip-build --disable-xctest)
binary="$(cd "$app" && swift build --show-bin-path)/$name"
[ -x "$binary" ] || { log "no binary at $binary"; exit 1; }

# selenium for the browser part, in a venv under the repository's ignored .venv* pattern.
venv="$root/.venv-hbapp"
python=python3
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import selenium' 2>/dev/null; then
        log "making $venv (selenium)"
        python3 -m venv "$venv" && "$venv/bin/pip" install -q "selenium>=4.11,<5" >&2 || log "selenium could not be installed"
    fi
    "$venv/bin/python" -c 'import selenium' 2>/dev/null && python="$venv/bin/python"
elif [ "${CI:-}" = true ]; then
    log "chromium and chromium-driver are required under CI=true (Tests/providers.sh installs them as root)"
    exit 1
fi

# The Python MCP SDK for the "mcp" part, in its own venv (app_tests.py runs it as a subprocess).
bash "$here/mcp-setup.sh" >&2 || log "the Python MCP SDK could not be installed (the mcp part will say so)"

log "the app's tests ($name)"
started=$(date +%s)
status=0
"$python" "$here/app_tests.py" --binary "$binary" --app "$name" "$@" || status=$?
log "app tests finished in $(( $(date +%s) - started )) s"
exit "$status"
