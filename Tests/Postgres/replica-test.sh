#!/usr/bin/env bash
# The replica test (issue 16): 4 processes of sample-replica share one user's tokens through
# PostgreSQL, against django-oauth-toolkit with refresh-token rotation and reuse protection.
#
#   bash Tests/Postgres/replica-test.sh        # PG_PORT (5472) and IDP_PORT (9471) may be set
#
# Phases (each starts from a fresh login with a 2-second access token, seeded with --seed-tokens;
# once it expired the provider restarts with 1-hour tokens, and every one of the 4 x 250
# requests first gets a 401):
#   1. shared store: every process exits 0 with status_2xx=250 and logged_out=false; the
#      processes sent 1 refresh in total, and the provider's log shows exactly 1 token request.
#   2. contrast, --per-process-store: each process refreshes on its own; the replayed refresh
#      tokens trip reuse protection and the user ends logged out.
#   3. crash: SAMPLE_REPLICA_REFRESH_DELAY_MS holds the process that took the refresh lease inside
#      its refresh step, before the provider call; it is killed (SIGKILL); its lease expires (30 s,
#      PostgresTokenStore's default) and one survivor takes over: the 3 others finish with every
#      request 2xx, 1 refresh at the provider (the killed one never sent its refresh token), not logged out.
#   4. connection loss: while one process is inside its refresh step, every PostgreSQL connection of
#      every process is terminated (pg_terminate_backend); the holder still stores its result: every
#      request 2xx, 1 refresh at the provider, nobody logged out; a fifth process started afterwards
#      gets 2xx from the stored tokens without any token request.
#   5. pending logins (sample-pending-login): started in one process, finished in a second,
#      the same callback replayed in a third fails with pending_login_not_found.
# Each process's failed requests and session events (stderr) are shown as "STDERR ..." lines.
# Waits are on events (a line printed, a process exiting, the provider refusing the expired token),
# each bounded by a generous deadline; no fixed sleep decides an outcome.
# Prints "OBSERVED ..." lines and "REPLICA TEST PASSED"; exits non-zero on any failure.
# PG_URL / IDP_ISSUER set in the environment are NOT used: the test needs its own provider
# settings (2 s access tokens), and starts its own PostgreSQL and its own provider database
# (IDP_DB in the temporary directory: another provider sharing Tests/IdP/run/idp.sqlite3, such as
# the one .ci/run keeps on 9400, must not hold SQLite's write lock while this run refreshes).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$(pwd)
PG_PORT=${PG_PORT:-5472}
IDP_PORT=${IDP_PORT:-9471}
REQUESTS=${REPLICA_REQUESTS:-250}
work=$(mktemp -d)
log() { printf '==> %s\n' "$*" >&2; }
fail() { echo "REPLICA TEST FAILED: $*" >&2; exit 1; }
cleanup() {
    bash "$root/Tests/IdP/stop.sh" "$IDP_PORT" >/dev/null 2>&1 || true
    bash "$root/Tests/Postgres/stop.sh" "$PG_PORT" >/dev/null 2>&1 || true
    if [ -n "${KEEP_WORK:-}" ]; then echo "kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

swift build --product sample-replica >&2
swift build --product sample-exchange-code >&2
swift build --product sample-authorize-url >&2
swift build --product sample-pending-login >&2
bin=$(swift build --show-bin-path)
export IDP_DB="$work/idp.sqlite3"
bash Tests/IdP/setup.sh >&2

PG_URL=$(bash Tests/Postgres/start.sh "$PG_PORT" | sed -n 's/^PG_URL=//p')
[ -n "$PG_URL" ] || fail "PostgreSQL did not start"
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
    "$bin/sample-replica" --database "$PG_URL" --issuer "$ISS" --client-id client-basic --client-secret secret-basic \
        --user "$user" "$@" --requests "$REQUESTS" "$userinfo"
}

seed() {  # seed USER: fresh login (2 s access token) stored under USER; wait until it expired
    provider 2
    login "$work/tokens-$1.json"
    "$bin/sample-replica" --database "$PG_URL" --issuer "$ISS" --client-id client-basic --client-secret secret-basic \
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
log "phase 1: 4 processes x $REQUESTS requests, shared PostgreSQL store"
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
[ "$status" = 0 ] || { cat "$work"/p1-*.err >&2; grep 'POST /o/token/' "$idp_log" | tail -n 5 >&2 || true
    fail "a process did not get $REQUESTS x 2xx"; }
grep -q "status_2xx=$REQUESTS refreshes=[01] logged_out=false" "$work/p1-1.out" || fail "process 1: $(cat "$work/p1-1.out")"
for i in 1 2 3 4; do grep -q "status_2xx=$REQUESTS .*logged_out=false" "$work/p1-$i.out" || fail "process $i: $(cat "$work/p1-$i.out")"; done
refreshes=$(cat "$work"/p1-*.out | sed -n 's/.*refreshes=\([0-9]*\).*/\1/p' | paste -sd+ | bc)
provider=$(( $(token_requests) - before ))
echo "OBSERVED shared store: refreshes sent by the 4 processes: $refreshes; token requests at the provider: $provider; wall time $(python3 -c "print(f'{$end-$start:.2f}s')")"
[ "$refreshes" = 1 ] || fail "expected 1 refresh in total, got $refreshes"
[ "$provider" = 1 ] || fail "the provider saw $provider token requests, expected 1"

# --- 2. contrast: per-process stores ------------------------------------------------------
log "phase 2: the same with per-process stores"
seed alice-2
before=$(token_requests)
pids=()
for i in 1 2 3 4; do replica alice-2 --per-process-store > "$work/p2-$i.out" 2> "$work/p2-$i.err" & pids+=($!); done
for pid in "${pids[@]}"; do wait "$pid" || true; done
cat "$work"/p2-*.out
show_stderr p2
refreshes=$(cat "$work"/p2-*.out | sed -n 's/.*refreshes=\([0-9]*\).*/\1/p' | paste -sd+ | bc)
echo "OBSERVED per-process stores: refreshes sent: $refreshes; token requests at the provider: $(( $(token_requests) - before ))"
grep -q "logged_out=true" "$work"/p2-*.out || fail "expected the user to end logged out with per-process stores"
# And the grant is dead for everyone: one more (shared-store) run cannot refresh.
if replica alice-2 > "$work/p2-after.out" 2>/dev/null; then fail "the token family survived reuse: $(cat "$work/p2-after.out")"; fi
echo "OBSERVED after the per-process run, a shared-store run: $(cat "$work/p2-after.out")"

# --- 3. a process dies holding the refresh lease --------------------------------------------
log "phase 3: kill the process holding the refresh lease"
seed alice-3
before=$(token_requests)
pids=()
for i in 1 2 3 4; do
    SAMPLE_REPLICA_REFRESH_DELAY_MS=1500 replica alice-3 > "$work/p3-$i.out" 2> "$work/p3-$i.err" & pids+=($!)
done
holder=$(wait_line 'refresh-lock-held pid=[0-9]*' p3 | sed 's/.*pid=//') || { cat "$work"/p[34]-*.err >&2; fail "no process took the refresh lease"; }
kill -KILL "$holder"
echo "OBSERVED killed pid $holder while it held the refresh lease (inside its refresh step)"
survivors=0
for i in 1 2 3 4; do
    if grep -q "refresh-lock-held pid=$holder\$" "$work/p3-$i.err"; then wait "${pids[$((i - 1))]}" 2>/dev/null || true; continue; fi
    wait "${pids[$((i - 1))]}" || { cat "$work"/p3-*.err >&2; fail "surviving process $i failed"; }
    survivors=$((survivors + 1))
done
cat "$work"/p3-*.out
show_stderr p3
[ "$survivors" = 3 ] || fail "expected 3 surviving processes"
refreshes=$(cat "$work"/p3-*.out | sed -n 's/.*refreshes=\([0-9]*\).*/\1/p' | paste -sd+ | bc)
provider=$(( $(token_requests) - before ))
echo "OBSERVED after the kill: refreshes sent by the survivors: $refreshes; token requests at the provider: $provider"
[ "$refreshes" = 1 ] && [ "$provider" = 1 ] || fail "expected exactly 1 refresh after the kill"
for f in "$work"/p3-*.out; do [ -s "$f" ] || continue; grep -q "status_2xx=$REQUESTS .*logged_out=false" "$f" || fail "$(cat "$f")"; done

# --- 4. every database connection terminated during the refresh step ------------------------
log "phase 4: terminate every PostgreSQL connection while a process is inside its refresh step"
seed alice-4
before=$(token_requests)
pids=()
for i in 1 2 3 4; do
    SAMPLE_REPLICA_REFRESH_DELAY_MS=3000 replica alice-4 > "$work/p4-$i.out" 2> "$work/p4-$i.err" & pids+=($!)
done
holder=$(wait_line 'refresh-lock-held pid=[0-9]*' p4 | sed 's/.*pid=//') || { cat "$work"/p[34]-*.err >&2; fail "no process took the refresh lease"; }
db=$(psql "$PG_URL" -At -c "SELECT current_database()")
terminated=$(psql "$PG_URL" -At -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = '$db'")
echo "OBSERVED terminated $terminated PostgreSQL connections while pid $holder was inside its refresh step"
[ "$terminated" -ge 4 ] || fail "expected every process's connections to be terminated, got $terminated"
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
cat "$work"/p4-*.out
show_stderr p4
[ "$status" = 0 ] || { cat "$work"/p4-*.err >&2; fail "a process did not get $REQUESTS x 2xx after the connections were terminated"; }
for i in 1 2 3 4; do grep -q "status_2xx=$REQUESTS .*logged_out=false" "$work/p4-$i.out" || fail "process $i: $(cat "$work/p4-$i.out")"; done
refreshes=$(cat "$work"/p4-*.out | sed -n 's/.*refreshes=\([0-9]*\).*/\1/p' | paste -sd+ | bc)
provider=$(( $(token_requests) - before ))
echo "OBSERVED after terminating every connection: refreshes sent: $refreshes; token requests at the provider: $provider"
[ "$refreshes" = 1 ] && [ "$provider" = 1 ] || fail "expected exactly 1 refresh at the provider"
before=$(token_requests)
replica alice-4 > "$work/p4-later.out" 2> "$work/p4-later.err" || { cat "$work/p4-later.err" >&2; fail "a process started later failed: $(cat "$work/p4-later.out")"; }
provider=$(( $(token_requests) - before ))
echo "OBSERVED a process started later: $(cat "$work/p4-later.out"); token requests at the provider: $provider"
grep -q "status_2xx=$REQUESTS refreshes=0 logged_out=false" "$work/p4-later.out" || fail "the later process: $(cat "$work/p4-later.out")"
[ "$provider" = 0 ] || fail "the later process sent $provider token requests: the holder's refresh was not stored"

# --- 5. a login started in one process, finished in another, replayed in a third -----------
log "phase 5: pending login across processes"
export TOKEN_ENCRYPTION_KEY=$(head -c 32 /dev/urandom | base64)
pending() { "$bin/sample-pending-login" "$@" --database "$PG_URL" --issuer "$ISS" --client-id client-basic; }
authorize=$(pending start --redirect-uri http://127.0.0.1:8765/callback --scope "openid profile")
callback=$(python3 Tests/IdP/login.py --authorize-url "$authorize")
finished=$(pending finish --client-secret secret-basic --callback "$callback") || fail "the second process could not finish the login"
echo "OBSERVED finished in a second process: $finished"
[[ "$finished" == *'"sub":"1"'* ]] || fail "unexpected result $finished"
if replayed=$(pending finish --client-secret secret-basic --callback "$callback" 2>&1); then fail "the replayed callback was accepted"; fi
echo "OBSERVED replayed in a third process: $replayed"
[[ "$replayed" == *pending_login_not_found* ]] || fail "the replay failed for another reason: $replayed"
echo "REPLICA TEST PASSED"
