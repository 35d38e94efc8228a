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
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$(pwd)
REDIS_PORT=${REDIS_PORT:-6392}
IDP_PORT=${IDP_PORT:-9473}
REQUESTS=${REPLICA_REQUESTS:-250}
work=$(mktemp -d)
log() { printf '==> %s\n' "$*" >&2; }
fail() { echo "REPLICA TEST FAILED: $*" >&2; exit 1; }
cleanup() {
    bash "$root/Tests/IdP/stop.sh" "$IDP_PORT" >/dev/null 2>&1 || true
    bash "$root/Tests/Redis/stop.sh" "$REDIS_PORT" >/dev/null 2>&1 || true
    if [ -n "${KEEP_WORK:-}" ]; then echo "kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

swift build --product sample-replica >&2
swift build --product sample-exchange-code >&2
swift build --product sample-authorize-url >&2
bin=$(swift build --show-bin-path)
export IDP_DB="$work/idp.sqlite3"
bash Tests/IdP/setup.sh >&2

redis_start() {
    REDIS_URL=$(bash Tests/Redis/start.sh "$REDIS_PORT" | sed -n 's/^REDIS_URL=//p')
    [ -n "$REDIS_URL" ] || fail "Redis did not start"
}
redis_start
rcli() { redis-cli -h 127.0.0.1 -p "$REDIS_PORT" "$@"; }
# The provider's access-token lifetime: short while a login is seeded (so it expires), long
# while the replicas run (a refreshed token must outlive 1000 retries on a 2-core machine).
# Tokens live in the provider's database, so they survive the restart.
provider() {
    ISS=$(IDP_ACCESS_TOKEN_SECONDS=$1 IDP_REFRESH_REUSE_PROTECTION=1 IDP_WORKERS=${IDP_WORKERS:-4} \
        bash Tests/IdP/start.sh "$IDP_PORT" | sed -n 's/^IDP_ISSUER=//p')
    [ -n "$ISS" ] || fail "the provider did not start"
}
provider 2
idp_log="$root/Tests/IdP/run/idp-$IDP_PORT.log"
userinfo="$ISS/userinfo/"
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
token_requests() { grep -c 'POST /o/token/' "$idp_log" || true; }

# A fresh login of alice: writes the tokens to $1 (sample-exchange-code --save-tokens).
login() {
    "$bin/sample-authorize-url" --authorization-endpoint "$ISS/authorize/" --client-id client-basic \
        --redirect-uri http://127.0.0.1:8765/callback --scope "openid profile email" > "$work/pending.json"
    local redirect code
    redirect=$(python3 Tests/IdP/login.py --authorize-url "$(json "$work/pending.json" url)")
    code=$(python3 -c 'import sys,urllib.parse as u; print(u.parse_qs(u.urlparse(sys.argv[1]).query)["code"][0])' "$redirect")
    rm -f "$1"
    "$bin/sample-exchange-code" --issuer "$ISS" --client-id client-basic --client-secret secret-basic \
        --redirect-uri http://127.0.0.1:8765/callback --code "$code" --code-verifier "$(json "$work/pending.json" code_verifier)" \
        --nonce "$(json "$work/pending.json" nonce)" --save-tokens "$1" >/dev/null
}

replica() {  # replica USER [extra args...]: one process, N requests, no seeding
    local user=$1; shift
    "$bin/sample-replica" --database "$REDIS_URL" --issuer "$ISS" --client-id client-basic --client-secret secret-basic \
        --user "$user" "$@" --requests "$REQUESTS" "$userinfo"
}

seed() {  # seed USER: fresh login (2 s access token) stored under USER; wait until it expired
    provider 2
    login "$work/tokens-$1.json"
    "$bin/sample-replica" --database "$REDIS_URL" --issuer "$ISS" --client-id client-basic --client-secret secret-basic \
        --user "$1" --seed-tokens "$work/tokens-$1.json" --requests 0 "$userinfo" >/dev/null
    # The event: the provider refuses the seeded access token (it expired).
    local access code
    access=$(json "$work/tokens-$1.json" access_token)
    for _ in $(seq 1 600); do
        code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $access" "$userinfo" || true)
        [ "$code" = 401 ] && break
        sleep 0.1
    done
    [ "$code" = 401 ] || fail "the seeded access token did not expire (userinfo answered $code)"
    provider 3600
}

# wait_line PATTERN PHASE: waits (up to 120 s) until a line matching PATTERN appears in the stderr of one of
# the PHASE's processes ($work/PHASE-*.err, expanded at every look: a background process creates its file late); prints it.
wait_line() {
    local pattern=$1 phase=$2 found=""
    for _ in $(seq 1 2400); do
        found=$(grep -h -o "$pattern" "$work/$phase"-*.err 2>/dev/null | head -n 1) || true
        [ -n "$found" ] && { echo "$found"; return 0; }
        sleep 0.05
    done
    return 1
}

# show_stderr PREFIX: every failed request's cause and session event of the processes of a phase.
show_stderr() {
    local f
    for f in "$work/$1"-*.err; do
        grep -h 'requests failed\|session event' "$f" 2>/dev/null | sed "s|^|STDERR $(basename "$f" .err): |" || true
    done
}


# --- 1. shared store --------------------------------------------------------------------
log "phase 1: 4 processes x $REQUESTS requests, shared Redis store"
seed alice-1
before=$(token_requests)
start=$(date +%s.%N)
pids=()
for i in 1 2 3 4; do replica alice-1 > "$work/p1-$i.out" 2> "$work/p1-$i.err" & pids+=($!); done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
end=$(date +%s.%N)
cat "$work"/p1-*.out
show_stderr p1
[ "$status" = 0 ] || { cat "$work"/p1-*.err >&2; fail "a process did not get $REQUESTS x 2xx"; }
for i in 1 2 3 4; do grep -q "status_2xx=$REQUESTS .*logged_out=false" "$work/p1-$i.out" || fail "process $i: $(cat "$work/p1-$i.out")"; done
refreshes=$(cat "$work"/p1-*.out | sed -n 's/.*refreshes=\([0-9]*\).*/\1/p' | paste -sd+ | bc)
provider=$(( $(token_requests) - before ))
echo "OBSERVED shared Redis store: refreshes sent by the 4 processes: $refreshes; token requests at the provider: $provider; wall time $(python3 -c "print(f'{$end-$start:.2f}s')")"
[ "$refreshes" = 1 ] || fail "expected 1 refresh in total, got $refreshes"
[ "$provider" = 1 ] || fail "the provider saw $provider token requests, expected 1"

# --- 2. a process dies holding the refresh lease --------------------------------------------
log "phase 2: kill the process holding the refresh lease"
seed alice-2
before=$(token_requests)
pids=()
for i in 1 2 3 4; do
    SAMPLE_REPLICA_REFRESH_DELAY_MS=1500 replica alice-2 > "$work/p2-$i.out" 2> "$work/p2-$i.err" & pids+=($!)
done
holder=$(wait_line 'refresh-lock-held pid=[0-9]*' p2 | sed 's/.*pid=//') || { cat "$work"/p2-*.err >&2; fail "no process took the refresh lease"; }
kill -KILL "$holder"
echo "OBSERVED killed pid $holder while it held the refresh lease (inside its refresh step)"
survivors=0
for i in 1 2 3 4; do
    if grep -q "refresh-lock-held pid=$holder\$" "$work/p2-$i.err"; then wait "${pids[$((i - 1))]}" 2>/dev/null || true; continue; fi
    wait "${pids[$((i - 1))]}" || { cat "$work"/p2-*.err >&2; fail "surviving process $i failed"; }
    survivors=$((survivors + 1))
done
cat "$work"/p2-*.out
show_stderr p2
[ "$survivors" = 3 ] || fail "expected 3 surviving processes"
refreshes=$(cat "$work"/p2-*.out | sed -n 's/.*refreshes=\([0-9]*\).*/\1/p' | paste -sd+ | bc)
provider=$(( $(token_requests) - before ))
echo "OBSERVED after the kill: refreshes sent by the survivors: $refreshes; token requests at the provider: $provider"
[ "$refreshes" = 1 ] && [ "$provider" = 1 ] || fail "expected exactly 1 refresh after the kill"
for f in "$work"/p2-*.out; do [ -s "$f" ] || continue; grep -q "status_2xx=$REQUESTS .*logged_out=false" "$f" || fail "$(cat "$f")"; done

# --- 3. every client connection killed during the refresh step ------------------------------
log "phase 3: CLIENT KILL every connection while a process is inside its refresh step"
seed alice-3
before=$(token_requests)
pids=()
for i in 1 2 3 4; do
    SAMPLE_REPLICA_REFRESH_DELAY_MS=3000 replica alice-3 > "$work/p3-$i.out" 2> "$work/p3-$i.err" & pids+=($!)
done
holder=$(wait_line 'refresh-lock-held pid=[0-9]*' p3 | sed 's/.*pid=//') || { cat "$work"/p3-*.err >&2; fail "no process took the refresh lease"; }
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
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
cat "$work"/p3-*.out
show_stderr p3
[ "$status" = 0 ] || { cat "$work"/p3-*.err >&2; fail "a process did not get $REQUESTS x 2xx after its connections were killed"; }
for i in 1 2 3 4; do grep -q "status_2xx=$REQUESTS .*logged_out=false" "$work/p3-$i.out" || fail "process $i: $(cat "$work/p3-$i.out")"; done
refreshes=$(cat "$work"/p3-*.out | sed -n 's/.*refreshes=\([0-9]*\).*/\1/p' | paste -sd+ | bc)
provider=$(( $(token_requests) - before ))
echo "OBSERVED after killing every connection: refreshes sent: $refreshes; token requests at the provider: $provider"
[ "$refreshes" = 1 ] && [ "$provider" = 1 ] || fail "expected exactly 1 refresh at the provider"
before=$(token_requests)
replica alice-3 > "$work/p3-later.out" 2> "$work/p3-later.err" || { cat "$work/p3-later.err" >&2; fail "a process started later failed: $(cat "$work/p3-later.out")"; }
provider=$(( $(token_requests) - before ))
echo "OBSERVED a process started later: $(cat "$work/p3-later.out"); token requests at the provider: $provider"
grep -q "status_2xx=$REQUESTS refreshes=0 logged_out=false" "$work/p3-later.out" || fail "the later process: $(cat "$work/p3-later.out")"
[ "$provider" = 0 ] || fail "the later process sent $provider token requests: the holder's refresh was not stored"

# --- 4. the server restarted without persistence during the refresh step -------------------
log "phase 4: restart Redis (no persistence) while a process is inside its refresh step"
seed alice-4
before=$(token_requests)
refused_before=$(grep -c '"POST /o/token/ HTTP/1.1" 4' "$idp_log" || true)
pids=()
for i in 1 2 3 4; do
    SAMPLE_REPLICA_REFRESH_DELAY_MS=3000 replica alice-4 > "$work/p4-$i.out" 2> "$work/p4-$i.err" & pids+=($!)
done
holder=$(wait_line 'refresh-lock-held pid=[0-9]*' p4 | sed 's/.*pid=//') || { cat "$work"/p4-*.err >&2; fail "no process took the refresh lease"; }
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
refreshes=$(cat "$work"/p4-*.out | sed -n 's/.*refreshes=\([0-9]*\).*/\1/p' | paste -sd+ | bc)
provider=$(( $(token_requests) - before ))
refused=$(( $(grep -c '"POST /o/token/ HTTP/1.1" 4' "$idp_log" || true) - refused_before ))
logged_out=$(grep -l 'logged_out=true' "$work"/p4-*.out 2>/dev/null | wc -l)
echo "OBSERVED after the restart: refreshes sent: $refreshes; token requests at the provider: $provider; refused by the provider: $refused; processes logged out: $logged_out of 4"
[ "$provider" -le 1 ] && [ "${refreshes:-0}" -le 1 ] || fail "a refresh token was sent more than once after the restart"
[ "$refused" = 0 ] || fail "the provider refused $refused token requests: a spent refresh token was replayed"
echo "REDIS REPLICA TEST PASSED"
