#!/usr/bin/env bash
# Start a private glewlwyd 2.7.5 (Debian package) on 127.0.0.1:PORT and configure it from
# nothing through its admin REST API (configure.py): scopes, the OIDC plugin at
# BASE/api/oidc with RS256 + ES256 + EdDSA signing keys made at start-up, the user
# alice/password and the test clients.
#
#   bash Tests/Glewlwyd/start.sh [PORT]     # PORT defaults to $GLEWLWYD_PORT, then 4593
#
# stdout: KEY=VALUE lines for `eval` (GLEWLWYD_ISSUER=..., client ids and secrets);
# the same lines are written to run/PORT/env. Everything else goes to stderr.
# Run directory run/PORT: glewlwyd.db (fresh SQLite from the package's init SQL),
# keys/, glewlwyd.log, glewlwyd.pid. An instance this script started on PORT is stopped
# first. Installs `glewlwyd sqlite3` with apt-get when missing and running as root.
# Env: GLEWLWYD_LOG_LEVEL (default INFO; DEBUG says why a request is refused),
#      GLEWLWYD_ACCESS_TOKEN_SECONDS (default 3600), GLEWLWYD_START_TIMEOUT (default 30 s),
#      GLEWLWYD_LOGOUT_PORT (default 9452: the back-channel logout URI of the LOGOUT client),
#      GLEWLWYD_TLS=1: a second kind of instance, served over https on 127.0.0.1 with client-certificate
#      verification (`secure_connection_ca_file`, RFC 8705 mTLS): a test CA, server and client
#      certificates are made with openssl in run/PORT/tls (test-only keys, never committed); the plugin
#      takes client certificates from the TLS session and publishes mtls_endpoint_aliases; the client
#      MTLS (tls_client_auth, matched by its certificate's SAN DNS name) is added. Every printed name
#      then starts with GLEWLWYD_TLS_ (GLEWLWYD_TLS_ISSUER, GLEWLWYD_TLS_CA_FILE, ...), so this
#      instance's lines never overwrite the plain instance's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
HERE="$(pwd)"

PORT="${1:-${GLEWLWYD_PORT:-4593}}"
if ! [[ "$PORT" =~ ^[0-9]+$ ]] || (( PORT < 1 || PORT > 65535 )); then
    echo "start.sh: invalid port '$PORT'" >&2
    exit 2
fi

missing=()
command -v glewlwyd >/dev/null || missing+=(glewlwyd)
command -v sqlite3 >/dev/null || missing+=(sqlite3)
command -v openssl >/dev/null || missing+=(openssl)
command -v python3 >/dev/null || missing+=(python3)
if (( ${#missing[@]} > 0 )); then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
        echo "start.sh: installing ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2 && apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "start.sh: missing ${missing[*]} (e.g. sudo apt-get install ${missing[*]})" >&2
        exit 1
    fi
fi
INIT_SQL=/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz
[[ -f "$INIT_SQL" ]] || { echo "start.sh: $INIT_SQL not found" >&2; exit 1; }

RUN="$HERE/run/$PORT"
if [[ -f "$RUN/glewlwyd.pid" ]]; then
    echo "start.sh: an instance runs on $PORT; stopping it first" >&2
    "$HERE/stop.sh" "$PORT" >&2
fi
rm -rf "$RUN"
mkdir -p "$RUN"
zcat "$INIT_SQL" | sqlite3 "$RUN/glewlwyd.db"
python3 "$HERE/keys.py" "$RUN/keys"

BASE="http://127.0.0.1:$PORT"
TLS_ENV=()
CONFIGURE_TLS=()
if [[ "${GLEWLWYD_TLS:-0}" == 1 ]]; then
    BASE="https://127.0.0.1:$PORT"
    bash "$HERE/tls-certificates.sh" "$RUN/tls" >&2
    TLS_ENV=(GLWD_USE_SECURE_CONNECTION=1 GLWD_SECURE_CONNECTION_KEY_FILE="$RUN/tls/server.key"
             GLWD_SECURE_CONNECTION_PEM_FILE="$RUN/tls/server.pem" GLWD_SECURE_CONNECTION_CA_FILE="$RUN/tls/ca.pem")
    CONFIGURE_TLS=(--tls-dir "$RUN/tls")
    # configure.py's urllib trusts the test CA only (the machine's trust store is set globally).
    export SSL_CERT_FILE="$RUN/tls/ca.pem"
fi
LIB=/usr/lib/glewlwyd
: > "$RUN/glewlwyd.log"
# Detached stdin/stdout/stderr, so callers reading our pipes are not held open.
env "${TLS_ENV[@]}" GLWD_PORT="$PORT" GLWD_BIND_ADDRESS=127.0.0.1 GLWD_EXTERNAL_URL="$BASE" \
    GLWD_API_PREFIX=api GLWD_DATABASE_TYPE=sqlite3 GLWD_DATABASE_SQLITE3_PATH="$RUN/glewlwyd.db" \
    GLWD_COOKIE_SECURE=0 GLWD_LOGIN_API_ENABLED=1 GLWD_ADMIN_SCOPE=g_admin GLWD_PROFILE_SCOPE=g_profile \
    GLWD_HASH_ALGORITHM=SHA512 GLWD_STATIC_FILES_PATH=/usr/share/glewlwyd/webapp \
    GLWD_USER_MODULE_PATH="$LIB/user" GLWD_CLIENT_MODULE_PATH="$LIB/client" \
    GLWD_AUTH_SCHEME_MODULE_PATH="$LIB/scheme" GLWD_PLUGIN_MODULE_PATH="$LIB/plugin" \
    GLWD_USER_MIDDLEWARE_MODULE_PATH="$LIB/user_middleware" \
    GLWD_LOG_MODE=console GLWD_LOG_LEVEL="${GLEWLWYD_LOG_LEVEL:-INFO}" \
    nohup glewlwyd --env-variables </dev/null >>"$RUN/glewlwyd.log" 2>&1 &
echo "$!" > "$RUN/glewlwyd.pid"

if python3 "$HERE/configure.py" --base "$BASE" --run "$RUN" --pid "$(cat "$RUN/glewlwyd.pid")" \
        --timeout "${GLEWLWYD_START_TIMEOUT:-30}" \
        --access-token-seconds "${GLEWLWYD_ACCESS_TOKEN_SECONDS:-3600}" \
        --logout-uri "http://127.0.0.1:${GLEWLWYD_LOGOUT_PORT:-9452}/backchannel-logout" "${CONFIGURE_TLS[@]}" > "$RUN/env.tmp"; then
    mv "$RUN/env.tmp" "$RUN/env"
    cat "$RUN/env"
else
    echo "start.sh: glewlwyd on port $PORT did not come up configured; last lines of $RUN/glewlwyd.log:" >&2
    tail -n 40 "$RUN/glewlwyd.log" >&2 || true
    "$HERE/stop.sh" "$PORT" >&2 || true
    exit 1
fi
