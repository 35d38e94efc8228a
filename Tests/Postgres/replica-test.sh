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
PG_PORT=${PG_PORT:-5472}
IDP_PORT=${IDP_PORT:-9471}
replica_stop_store() { bash Tests/Postgres/stop.sh "$PG_PORT"; }
replica_products=(sample-replica sample-exchange-code sample-authorize-url sample-pending-login)
source "$(dirname "${BASH_SOURCE[0]}")/../Support/replica-lib.sh"

DB_URL=$(bash Tests/Postgres/start.sh "$PG_PORT" | sed -n 's/^PG_URL=//p')
[ -n "$DB_URL" ] || fail "PostgreSQL did not start"
replica_start_provider

# --- 1. shared store --------------------------------------------------------------------
phase_shared_store p1 alice-1 PostgreSQL

# --- 2. contrast: per-process stores ------------------------------------------------------
log "phase 2: the same with per-process stores"
seed alice-2
before=$(token_requests)
launch p2 alice-2 0 --per-process-store
for pid in "${pids[@]}"; do wait "$pid" || true; done
cat "$work"/p2-*.out
show_stderr p2
echo "OBSERVED per-process stores: refreshes sent: $(sum_refreshes p2); token requests at the provider: $(( $(token_requests) - before ))"
grep -q "logged_out=true" "$work"/p2-*.out || fail "expected the user to end logged out with per-process stores"
# And the grant is dead for everyone: one more (shared-store) run cannot refresh.
if replica alice-2 > "$work/p2-after.out" 2>/dev/null; then fail "the token family survived reuse: $(cat "$work/p2-after.out")"; fi
echo "OBSERVED after the per-process run, a shared-store run: $(cat "$work/p2-after.out")"

# --- 3. a process dies holding the refresh lease --------------------------------------------
phase_lease_holder_killed p3 alice-3

# --- 4. every database connection terminated during the refresh step ------------------------
log "phase 4: terminate every PostgreSQL connection while a process is inside its refresh step"
seed alice-4
before=$(token_requests)
launch p4 alice-4 3000
holder=$(lease_holder p4)
db=$(psql "$DB_URL" -At -c "SELECT current_database()")
terminated=$(psql "$DB_URL" -At -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = '$db'")
echo "OBSERVED terminated $terminated PostgreSQL connections while pid $holder was inside its refresh step"
[ "$terminated" -ge 4 ] || fail "expected every process's connections to be terminated, got $terminated"
expect_every_request_served p4 "after terminating every connection"
expect_later_process_uses_stored_tokens alice-4

# --- 5. a login started in one process, finished in another, replayed in a third -----------
log "phase 5: pending login across processes"
export TOKEN_ENCRYPTION_KEY=$(head -c 32 /dev/urandom | base64)
pending() { "$bin/sample-pending-login" "$@" --database "$DB_URL" --issuer "$ISS" --client-id client-basic; }
authorize=$(pending start --redirect-uri http://127.0.0.1:8765/callback --scope "openid profile")
callback=$(python3 Tests/IdP/login.py --authorize-url "$authorize")
finished=$(pending finish --client-secret secret-basic --callback "$callback") || fail "the second process could not finish the login"
echo "OBSERVED finished in a second process: $finished"
[[ "$finished" == *'"sub":"1"'* ]] || fail "unexpected result $finished"
if replayed=$(pending finish --client-secret secret-basic --callback "$callback" 2>&1); then fail "the replayed callback was accepted"; fi
echo "OBSERVED replayed in a third process: $replayed"
[[ "$replayed" == *pending_login_not_found* ]] || fail "the replay failed for another reason: $replayed"
echo "REPLICA TEST PASSED"
