# The parts the replica tests share (sourced by Tests/Postgres/replica-test.sh and
# Tests/Redis/replica-test.sh; never run on its own): the work directory and its cleanup, the
# builds, the provider (django-oauth-toolkit with refresh-token rotation and reuse protection, on
# its own database), a seeded login whose access token has expired, 4 sample-replica processes,
# and the phases both stores must pass.
#
# Before sourcing, the caller sets:
#   IDP_PORT             the provider's port
#   replica_stop_store   a function that stops the caller's store (called on exit)
#   replica_products     the sample products to build, as an array (sample-replica first)
# After sourcing, it starts its store, sets DB_URL (the --database URL the processes use) and calls
# replica_start_provider. Every wait below waits on an event with a deadline, never a fixed sleep.

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$(pwd)
REQUESTS=${REPLICA_REQUESTS:-250}
work=$(mktemp -d)
log() { printf '==> %s\n' "$*" >&2; }
fail() { echo "REPLICA TEST FAILED: $*" >&2; exit 1; }
replica_cleanup() {
    bash "$root/Tests/IdP/stop.sh" "$IDP_PORT" >/dev/null 2>&1 || true
    replica_stop_store >/dev/null 2>&1 || true
    if [ -n "${KEEP_WORK:-}" ]; then echo "kept: $work" >&2; else rm -rf "$work"; fi
}
trap replica_cleanup EXIT

for product in "${replica_products[@]}"; do swift build --product "$product" >&2; done
bin=$(swift build --show-bin-path)
export IDP_DB="$work/idp.sqlite3"
bash Tests/IdP/setup.sh >&2

# provider SECONDS: (re)starts the provider with that access-token lifetime: short while a login is
# seeded (so it expires), long while the replicas run (a refreshed token must outlive 1000 retries on a
# 2-core machine). Tokens live in the provider's database, so they survive the restart.
provider() {
    ISS=$(IDP_ACCESS_TOKEN_SECONDS=$1 IDP_REFRESH_REUSE_PROTECTION=1 IDP_WORKERS=${IDP_WORKERS:-4} \
        bash Tests/IdP/start.sh "$IDP_PORT" | sed -n 's/^IDP_ISSUER=//p')
    [ -n "$ISS" ] || fail "the provider did not start"
}
replica_start_provider() {
    provider 2
    idp_log="$root/Tests/IdP/run/idp-$IDP_PORT.log"
    userinfo="$ISS/userinfo/"
}
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
token_requests() { grep -c 'POST /o/token/' "$idp_log" || true; }
sum_refreshes() { cat "$work/$1"-*.out | sed -n 's/.*refreshes=\([0-9]*\).*/\1/p' | paste -sd+ | bc; }

# login FILE: a fresh login of alice; writes the tokens to FILE (sample-exchange-code --save-tokens).
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
    "$bin/sample-replica" --database "$DB_URL" --issuer "$ISS" --client-id client-basic --client-secret secret-basic \
        --user "$user" "$@" --requests "$REQUESTS" "$userinfo"
}

seed() {  # seed USER: fresh login (2 s access token) stored under USER; wait until it expired
    provider 2
    login "$work/tokens-$1.json"
    "$bin/sample-replica" --database "$DB_URL" --issuer "$ISS" --client-id client-basic --client-secret secret-basic \
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

# launch PHASE USER [DELAY_MS [extra args...]]: starts the 4 processes of a phase in the background
# (stdout/stderr in $work/PHASE-i.out/.err, pids in the array `pids`); DELAY_MS holds the process that
# takes the refresh lease inside its refresh step for that long (SAMPLE_REPLICA_REFRESH_DELAY_MS).
launch() {
    local phase=$1 user=$2 delay=${3:-0} i
    shift $(( $# < 3 ? $# : 3 ))
    pids=()
    for i in 1 2 3 4; do
        SAMPLE_REPLICA_REFRESH_DELAY_MS=$delay replica "$user" "$@" > "$work/$phase-$i.out" 2> "$work/$phase-$i.err" &
        pids+=($!)
    done
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

# lease_holder PHASE: waits until a process of the phase holds the refresh lease; prints its pid.
lease_holder() {
    wait_line 'refresh-lock-held pid=[0-9]*' "$1" | sed 's/.*pid=//' || { cat "$work/$1"-*.err >&2; fail "no process took the refresh lease"; }
}

# show_stderr PHASE: every failed request's cause and session event of the processes of a phase.
show_stderr() {
    local f
    for f in "$work/$1"-*.err; do
        grep -h 'requests failed\|session event' "$f" 2>/dev/null | sed "s|^|STDERR $(basename "$f" .err): |" || true
    done
}

# expect_every_request_served PHASE WHAT: waits for the phase's 4 processes; each must have got every
# request 2xx and not be logged out, with exactly 1 refresh among them and 1 token request at the provider
# since $before. WHAT names the phase in the messages.
expect_every_request_served() {
    local phase=$1 what=$2 status=0 pid i refreshes provider_requests
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
    cat "$work/$phase"-*.out
    show_stderr "$phase"
    [ "$status" = 0 ] || { cat "$work/$phase"-*.err >&2; grep 'POST /o/token/' "$idp_log" | tail -n 5 >&2 || true
        fail "$what: a process did not get $REQUESTS x 2xx"; }
    for i in 1 2 3 4; do grep -q "status_2xx=$REQUESTS .*logged_out=false" "$work/$phase-$i.out" || fail "$what: process $i: $(cat "$work/$phase-$i.out")"; done
    refreshes=$(sum_refreshes "$phase")
    provider_requests=$(( $(token_requests) - before ))
    echo "OBSERVED $what: refreshes sent by the 4 processes: $refreshes; token requests at the provider: $provider_requests"
    [ "$refreshes" = 1 ] || fail "$what: expected 1 refresh in total, got $refreshes"
    [ "$provider_requests" = 1 ] || fail "$what: the provider saw $provider_requests token requests, expected 1"
}

# phase_shared_store PHASE USER STORE: 4 processes share one store; 1 refresh in total.
phase_shared_store() {
    log "phase $1: 4 processes x $REQUESTS requests, shared $3 store"
    seed "$2"
    before=$(token_requests)
    local start end
    start=$(date +%s.%N)
    launch "$1" "$2"
    expect_every_request_served "$1" "shared $3 store"
    end=$(date +%s.%N)
    echo "OBSERVED shared $3 store: wall time $(python3 -c "print(f'{$end-$start:.2f}s')")"
}

# phase_lease_holder_killed PHASE USER: the process holding the refresh lease is killed inside its refresh
# step; its lease expires and one survivor refreshes: 3 survivors, every request 2xx, 1 refresh.
phase_lease_holder_killed() {
    local phase=$1 holder survivors=0 i refreshes provider_requests f
    log "phase $phase: kill the process holding the refresh lease"
    seed "$2"
    before=$(token_requests)
    launch "$phase" "$2" 1500
    holder=$(lease_holder "$phase")
    kill -KILL "$holder"
    echo "OBSERVED killed pid $holder while it held the refresh lease (inside its refresh step)"
    for i in 1 2 3 4; do
        if grep -q "refresh-lock-held pid=$holder\$" "$work/$phase-$i.err"; then wait "${pids[$((i - 1))]}" 2>/dev/null || true; continue; fi
        wait "${pids[$((i - 1))]}" || { cat "$work/$phase"-*.err >&2; fail "surviving process $i failed"; }
        survivors=$((survivors + 1))
    done
    cat "$work/$phase"-*.out
    show_stderr "$phase"
    [ "$survivors" = 3 ] || fail "expected 3 surviving processes"
    refreshes=$(sum_refreshes "$phase")
    provider_requests=$(( $(token_requests) - before ))
    echo "OBSERVED after the kill: refreshes sent by the survivors: $refreshes; token requests at the provider: $provider_requests"
    [ "$refreshes" = 1 ] && [ "$provider_requests" = 1 ] || fail "expected exactly 1 refresh after the kill"
    for f in "$work/$phase"-*.out; do [ -s "$f" ] || continue; grep -q "status_2xx=$REQUESTS .*logged_out=false" "$f" || fail "$(cat "$f")"; done
}

# expect_later_process_uses_stored_tokens USER: a fifth process started afterwards gets every request 2xx
# from the stored tokens, without any token request (the holder's refresh was stored).
expect_later_process_uses_stored_tokens() {
    local provider_requests
    before=$(token_requests)
    replica "$1" > "$work/later.out" 2> "$work/later.err" || { cat "$work/later.err" >&2; fail "a process started later failed: $(cat "$work/later.out")"; }
    provider_requests=$(( $(token_requests) - before ))
    echo "OBSERVED a process started later: $(cat "$work/later.out"); token requests at the provider: $provider_requests"
    grep -q "status_2xx=$REQUESTS refreshes=0 logged_out=false" "$work/later.out" || fail "the later process: $(cat "$work/later.out")"
    [ "$provider_requests" = 0 ] || fail "the later process sent $provider_requests token requests: the holder's refresh was not stored"
}
