#!/usr/bin/env bash
# Start a private PostgreSQL server for the tests on 127.0.0.1:PORT.
# Usage: start.sh PORT
# Installs `postgresql libpq-dev` with apt-get when they are missing (root only),
# initialises a cluster in a temporary directory owned by the `postgres` user
# (initdb refuses root), starts it listening on 127.0.0.1:PORT only, with its
# Unix socket in that directory, and creates a role and a database for the tests.
# The server also speaks TLS, with a certificate for 127.0.0.1 from a throwaway CA
# made here (openssl), so clients can test sslmode=verify-full.
# On success prints two stdout lines:
#   PG_URL=postgresql://oidc_test@127.0.0.1:PORT/oidc_test
#   PG_SSLROOTCERT=DIR/ca.pem        (the CA to pass as sslrootcert)
# Everything else goes to stderr. The directory is recorded in
# ${TMPDIR:-/tmp}/oidc-pg-PORT.dir for stop.sh. Authentication is `trust` on
# loopback only (a throwaway test server; never a template for production).
set -euo pipefail

PORT="${1:-}"
if ! [[ "$PORT" =~ ^[0-9]+$ ]] || (( PORT < 1 || PORT > 65535 )); then
    echo "start.sh: usage: start.sh PORT" >&2
    exit 2
fi
ROLE=oidc_test
DB=oidc_test
STATEFILE="${TMPDIR:-/tmp}/oidc-pg-$PORT.dir"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

find_bin() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) ; do
        [[ -x "$dir/initdb" ]] && { printf '%s' "$dir"; return 0; }
    done
    command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
    return 1
}

if ! BIN="$(find_bin)" || ! pkg-config --exists libpq 2>/dev/null; then
    if [[ "$(id -u)" = 0 ]] && command -v apt-get >/dev/null; then
        echo "start.sh: installing postgresql libpq-dev" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2 && apt-get install -y -qq postgresql libpq-dev >&2
        BIN="$(find_bin)"
    else
        echo "start.sh: PostgreSQL (initdb) or libpq-dev is missing: apt-get install postgresql libpq-dev" >&2
        exit 1
    fi
fi

if [[ -f "$STATEFILE" ]]; then
    echo "start.sh: a server started by this script on port $PORT is recorded; stopping it first" >&2
    bash "$HERE/stop.sh" "$PORT" >&2 || true
fi

# Run a command as the cluster's owner: `postgres` when we are root, else ourselves.
if [[ "$(id -u)" = 0 ]]; then
    OWNER=postgres
    as_owner() { runuser -u postgres -- "$@"; }
else
    OWNER="$(id -un)"
    as_owner() { "$@"; }
fi

DIR="$(mktemp -d "${TMPDIR:-/tmp}/oidc-pg-$PORT.XXXXXX")"
chmod 700 "$DIR"
chown "$OWNER" "$DIR"
printf '%s\n' "$DIR" > "$STATEFILE"

fail() {
    echo "start.sh: $1" >&2
    [[ -f "$DIR/server.log" ]] && tail -n 30 "$DIR/server.log" >&2
    bash "$HERE/stop.sh" "$PORT" >&2 || true
    exit 1
}

as_owner "$BIN/initdb" -D "$DIR/data" -U "$OWNER" --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null 2>"$DIR/initdb.err" \
    || { cat "$DIR/initdb.err" >&2; fail "initdb failed"; }
# A throwaway CA and a server certificate for 127.0.0.1 (P-256), owned by the server's user.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=oidc-test-ca" \
    -keyout "$DIR/ca.key" -out "$DIR/ca.pem" 2>/dev/null || fail "openssl could not make the test CA"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
    -keyout "$DIR/server.key" -out "$DIR/server.csr" 2>/dev/null || fail "openssl could not make the server key"
printf 'subjectAltName=IP:127.0.0.1\n' > "$DIR/san.ext"
openssl x509 -req -in "$DIR/server.csr" -CA "$DIR/ca.pem" -CAkey "$DIR/ca.key" -CAcreateserial -days 2 \
    -extfile "$DIR/san.ext" -out "$DIR/server.pem" 2>/dev/null || fail "openssl could not sign the server certificate"
rm -f "$DIR/ca.key" "$DIR/server.csr" "$DIR/san.ext"
chmod 600 "$DIR/server.key"
chmod 644 "$DIR/ca.pem"
chown "$OWNER" "$DIR/server.key" "$DIR/server.pem" "$DIR/ca.pem"
as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 30 \
    -o "-k $DIR -p $PORT -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c ssl=on -c ssl_cert_file=$DIR/server.pem -c ssl_key_file=$DIR/server.key" start >/dev/null \
    || fail "pg_ctl start failed on 127.0.0.1:$PORT"
as_owner "$BIN/psql" -h "$DIR" -p "$PORT" -U "$OWNER" -d postgres -v ON_ERROR_STOP=1 -q \
    -c "CREATE ROLE $ROLE LOGIN" -c "CREATE DATABASE $DB OWNER $ROLE" >/dev/null \
    || fail "creating the role and database failed"
echo "PG_URL=postgresql://$ROLE@127.0.0.1:$PORT/$DB"
echo "PG_SSLROOTCERT=$DIR/ca.pem"
