#!/usr/bin/env bash
# Builds and runs every libFuzzer target for SECONDS seconds each.
#
#   bash Tests/Fuzz/run.sh SECONDS
#
# Environment:
#   FUZZ_TARGETS="fuzz-json fuzz-pem"  only these targets (default: all in Package.swift)
#   FUZZ_JOBS=2                        run that many targets at a time (default 1)
#   FUZZ_NO_BUILD=1                    use the binaries already in .build-fuzz
#
# Each target runs from its committed seed corpus (Corpus/<target>/, read only)
# plus a scratch corpus in .build-fuzz/corpus/<target>/ (new units go there, so the
# committed corpus is never touched; `-merge=1` into Corpus/ is a manual step).
# Limits: one input > $FUZZ_TIMEOUT s (default 5) is a timeout (every input here runs in
# milliseconds; 1 s tripped on inputs taking 0.03 s while other tenants starved the CPU), > 2048 MiB RSS is an OOM; leaks are
# reported by LeakSanitizer. Any crash, leak, timeout or OOM fails the run (exit 1)
# and leaves the input in Tests/Fuzz/artifacts/<target>-{crash,leak,timeout,oom}-*
# and the log in Tests/Fuzz/artifacts/<target>.log.
set -uo pipefail
seconds=${1:?usage: run.sh SECONDS}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scratch="$root/.build-fuzz"
artifacts="$here/artifacts"
mkdir -p "$artifacts"
cd "$here"

targets=${FUZZ_TARGETS:-$(sed -n 's/^ *("\(fuzz-[a-z0-9-]*\)".*/\1/p' Package.swift)}
jobs=${FUZZ_JOBS:-1}

log() { printf '==> %s\n' "$*" >&2; }

build_start=$(date +%s)
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
    for target in $targets; do
        log "building $target (release, -sanitize=fuzzer,address)"
        # One product at a time: the root package's executables are never linked with fuzzer flags.
        swift build -c release --scratch-path "$scratch" --product "$target" \
            -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library 2>&1 \
            | grep -v -e '^\[' -e "Cannot export local symbol '__asan_extra_spill_area'" >&2
        [ "${PIPESTATUS[0]}" = 0 ] || { log "build of $target failed"; exit 2; }
    done
fi
bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path 2>/dev/null)
log "build: $(( $(date +%s) - build_start )) s"

run_one() {
    local target=$1
    local work="$scratch/corpus/$target" logfile="$artifacts/$target.log"
    mkdir -p "$work"
    local start=$(date +%s)
    # The Swift runtime's own crash handler would run first (and trips ASan itself): leave
    # crashes to libFuzzer/ASan, which print the stack and save the input.
    SWIFT_BACKTRACE=enable=no \
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
    timeout --kill-after=10 $(( seconds + 300 )) \
        "$bin/$target" "$work" "Corpus/$target" \
        -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-5}" -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -dict=jose.dict -print_final_stats=1 -detect_leaks=1 \
        -artifact_prefix="$artifacts/$target-" >"$logfile" 2>&1
    local status=$?
    local elapsed=$(( $(date +%s) - start ))
    local line execs cov ft corp rss result
    line=$(grep -E '^#[0-9]+' "$logfile" | grep -E 'cov: ' | tail -1)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logfile" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$line")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$line")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$line")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$logfile" | tail -1)
    if [ "$status" = 0 ]; then
        result=OK
    else
        result="FAILED(exit $status: $(grep -m1 -oE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer): [a-zA-Z -]+|SUMMARY: [^ ]+ [^ ]+|Fatal error: .*' "$logfile" | head -1))"
        ls "$artifacts/$target-"* 2>/dev/null | sed 's/^/    artifact: /' >&2
    fi
    printf '%-26s %s stat::number_of_executed_units=%s cov: %s ft: %s corpus=%s peak_rss_mb=%s seconds=%s log=%s\n' \
        "$target" "$result" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "${rss:-?}" "$elapsed" "${logfile#"$root/"}"
    [ "$status" = 0 ]
}

summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
failed=0
running=0
for target in $targets; do
    log "fuzzing $target for ${seconds}s"
    ( run_one "$target" >>"$summary" ) &
    running=$(( running + 1 ))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || failed=1
        running=$(( running - 1 ))
    fi
done
while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$(( running - 1 ))
done

echo "==== fuzz summary (${seconds}s per target) ===="
sort "$summary"
if [ "$failed" != 0 ]; then
    echo "FUZZING FAILED: see the artifacts and logs above" >&2
    exit 1
fi
echo "all fuzz targets passed"
