#!/usr/bin/env bash
# The replica test against Redis (issue 33), the sibling of Tests/Postgres/replica-test.sh: 4 processes of
# sample-replica share one user's tokens through Redis (--database redis://127.0.0.1:PORT/0: OIDCRedis's
# RedisTokenStore), against django-oauth-toolkit with refresh-token rotation and reuse protection.
#
#   bash Tests/Redis/replica-test.sh        # REDIS_PORT (6392) and IDP_PORT (9473) may be set
#
# Phases (each starts from a fresh login with a 2-second access token, seeded with --seed-tokens;
# once it expired the provider restarts with 1-hour tokens, and every one of the 4 x 250 requests
# first gets a 401):
#   1. shared store: every process exits 0 with status_2xx=250 and logged_out=false; the processes
#      sent 1 refresh in total, and the provider's log shows exactly 1 token request.
#   2. crash: SAMPLE_REPLICA_REFRESH_DELAY_MS holds the process that took the refresh lease inside its
#      refresh step; it is killed (SIGKILL); its lease expires (30 s, RedisTokenStore's default) and one
#      survivor takes over: the 3 others finish with every request 2xx, 1 refresh, not logged out.
#   3. connection loss: while one process is inside its refresh step, every client connection of every
#      process is killed (CLIENT KILL TYPE normal, and TYPE pubsub for the subscribers); the holder still
#      stores its result: every request 2xx, 1 refresh at the provider, nobody logged out; a fifth process
#      started afterwards gets 2xx from the stored tokens without any token request.
#   4. the server restarted without persistence while one process is inside its refresh step: Redis
#      forgets the tokens. The holder's refresh reaches the provider once and is not stored (its lease is
#      gone: refresh_lease_lost); every other process finds no tokens and is logged out. What must hold:
#      at most 1 token request, none refused by the provider (no spent refresh token is ever sent: no
#      reuse detection fired), and every process ends by itself (exit 0, 1, or 2 for one still starting that
#      finds no tokens). Being logged out is the documented cost of a store without persistence.
# Each process's failed requests and session events (stderr) are shown as "STDERR ..." lines.
# Waits are on events (a line printed, a process exiting, the provider refusing the expired token),
# each bounded by a generous deadline; no fixed sleep decides an outcome.
# Prints "OBSERVED ..." lines and "REDIS REPLICA TEST PASSED"; exits non-zero on any failure.
# REDIS_URL / IDP_ISSUER set in the environment are NOT used: the test starts its own Redis (it restarts
# it) and its own provider (2 s access tokens, its own database).
set -euo pipefail
REDIS_PORT=${REDIS_PORT:-6392}
IDP_PORT=${IDP_PORT:-9473}
replica_stop_store() { bash Tests/Redis/stop.sh "$REDIS_PORT"; }
replica_products=(sample-replica sample-exchange-code sample-authorize-url)
source "$(dirname "${BASH_SOURCE[0]}")/../Support/replica-lib.sh"

redis_start() {
    DB_URL=$(bash Tests/Redis/start.sh "$REDIS_PORT" | sed -n 's/^REDIS_URL=//p')
    [ -n "$DB_URL" ] || fail "Redis did not start"
}
redis_start
rcli() { redis-cli -h 127.0.0.1 -p "$REDIS_PORT" "$@"; }
replica_start_provider

# --- 1. shared store --------------------------------------------------------------------
phase_shared_store p1 alice-1 Redis

# --- 2. a process dies holding the refresh lease --------------------------------------------
phase_lease_holder_killed p2 alice-2

# --- 3. every client connection killed during the refresh step ------------------------------
log "phase 3: CLIENT KILL every connection while a process is inside its refresh step"
seed alice-3
before=$(token_requests)
launch p3 alice-3 3000
holder=$(lease_holder p3)
# The event: every one of the 4 processes has a connection on the server (each names its connections
# sample-replica-PID), while the holder is still inside its 3 s refresh step; then kill them all.
connected=0
for _ in $(seq 1 40); do
    connected=$(rcli CLIENT LIST TYPE normal | grep -o 'name=sample-replica-[0-9]*' | sort -u | wc -l)
    [ "$connected" -ge 4 ] && break
    sleep 0.05
done
[ "$connected" -ge 4 ] || fail "only $connected of 4 processes connected to Redis within 2 s of the lease being taken"
killed=$(rcli CLIENT KILL TYPE normal SKIPME yes)
killed_pubsub=$(rcli CLIENT KILL TYPE pubsub)
echo "OBSERVED killed $killed normal and $killed_pubsub pub/sub connections while pid $holder was inside its refresh step"
[ "$killed" -ge 4 ] || fail "expected every process's connections to be killed, got $killed"
expect_every_request_served p3 "after killing every connection"
expect_later_process_uses_stored_tokens alice-3

# --- 4. the server restarted without persistence during the refresh step -------------------
log "phase 4: restart Redis (no persistence) while a process is inside its refresh step"
seed alice-4
before=$(token_requests)
refused_before=$(grep -c '"POST /o/token/ HTTP/1.1" 4' "$idp_log" || true)
launch p4 alice-4 3000
holder=$(lease_holder p4)
bash Tests/Redis/stop.sh "$REDIS_PORT" >&2
redis_start
echo "OBSERVED Redis restarted without persistence while pid $holder was inside its refresh step: $(rcli DBSIZE) keys now"
# Every process ends by itself: 0, 1 (requests failed: logged out) or 2 (one still starting found no tokens), never a crash.
codes=()
for pid in "${pids[@]}"; do code=0; wait "$pid" || code=$?; codes+=("$code"); done
echo "OBSERVED exit statuses after the restart: ${codes[*]}"
for code in "${codes[@]}"; do [ "$code" -le 2 ] || { cat "$work"/p4-*.err >&2; fail "a process ended with status $code"; }; done
cat "$work"/p4-*.out
show_stderr p4
refreshes=$(sum_refreshes p4)
provider=$(( $(token_requests) - before ))
refused=$(( $(grep -c '"POST /o/token/ HTTP/1.1" 4' "$idp_log" || true) - refused_before ))
logged_out=$( (grep -l 'logged_out=true' "$work"/p4-*.out 2>/dev/null || true) | wc -l)  # none logged out: grep finds nothing, which is no failure
echo "OBSERVED after the restart: refreshes sent: $refreshes; token requests at the provider: $provider; refused by the provider: $refused; processes logged out: $logged_out of 4"
[ "$provider" -le 1 ] && [ "${refreshes:-0}" -le 1 ] || fail "a refresh token was sent more than once after the restart"
[ "$refused" = 0 ] || fail "the provider refused $refused token requests: a spent refresh token was replayed"
echo "REDIS REPLICA TEST PASSED"
