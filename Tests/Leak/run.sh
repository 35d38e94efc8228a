#!/usr/bin/env bash
# Leak check (issue: hardening):
#   1. jose-leak-check: one process loops over verifications, signings, key
#      parses and failed parses; prints the RSS at 10^3, 10^4, 10^5, 10^6
#      iterations and fails when it grew by more than 4 MiB after 10^4.
#   2. valgrind --leak-check=full on a short jose-bench run and on jwt-inspect
#      (valid token, failing check, JWK Set, malformed input): fails on any
#      "definitely lost" block.
#
#   bash Tests/Leak/run.sh [ITERATIONS]     # default 1000000; CI uses 100000
set -euo pipefail
cd "$(dirname "$0")/../.."
iterations=${1:-1000000}
log() { printf '==> %s\n' "$*" >&2; }

if ! command -v valgrind >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        log "installing valgrind"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null \
            || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }
    else
        log "valgrind is missing (apt-get install valgrind)"; exit 2
    fi
fi

log "building release jose-leak-check, jose-bench, jwt-inspect"
for product in jose-leak-check jose-bench jwt-inspect; do
    if ! swift build -c release --product "$product" 2>&1 | grep -E "error|Build of" >&2; then
        log "build of $product failed"; exit 2
    fi
done
bin=$(swift build -c release --show-bin-path)

log "jose-leak-check, $iterations iterations"
"$bin/jose-leak-check" --keys Keys --iterations "$iterations"

failed=0
check() {  # label, then the command; standard input from $input
    local label=$1; shift
    local report
    report=$(mktemp)
    valgrind --leak-check=full --log-file="$report" "$@" <"$input" >/dev/null 2>&1 || true
    local definite possible
    definite=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$report" | tr -d ,)
    possible=$(sed -n 's/.*possibly lost: \([0-9,]*\) bytes.*/\1/p' "$report" | tr -d ,)
    # No leak summary at all means nothing was left allocated.
    printf 'valgrind %-44s definitely_lost=%s possibly_lost=%s\n' "$label" "${definite:-0}" "${possible:-0}"
    if [ "${definite:-0}" != 0 ]; then failed=1; grep -A12 "definitely lost in" "$report" >&2 || true; fi
    rm -f "$report"
}
input=Samples/tokens/rs256.jwt
check "jwt-inspect --key Keys/rsa2048.pem" "$bin/jwt-inspect" --key Keys/rsa2048.pem
check "jwt-inspect --key Keys/jwks.json --json" "$bin/jwt-inspect" --key Keys/jwks.json --json
check "jwt-inspect --key Keys/p256.pub.pem (wrong key)" "$bin/jwt-inspect" --key Keys/p256.pub.pem
check "jwt-inspect --secret-file Keys/hmac.key" "$bin/jwt-inspect" --secret-file Keys/hmac.key
input=Samples/tokens/expired.jwt
check "jwt-inspect (expired token)" "$bin/jwt-inspect" --key Keys/rsa2048.pub.pem
input=/dev/null
check "jwt-inspect (no token)" "$bin/jwt-inspect" --key Keys/rsa2048.pub.pem
export JOSE_BENCH_SECONDS=0.02 JOSE_BENCH_ROUNDS=1
check "jose-bench (short run, every algorithm)" "$bin/jose-bench"

if [ "$failed" != 0 ]; then echo "LEAK CHECK FAILED: definitely lost blocks above" >&2; exit 1; fi
echo "leak check passed: no RSS growth beyond the limit, no definitely lost block"
