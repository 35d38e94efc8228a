#!/usr/bin/env bash
# The API-breakage check of CI (.ci/stages): `swift package diagnose-api-breaking-changes` against
# the commit of the last released version, recorded in .api-baseline, over every Swift module of
# the baseline's library products. A break fails the check unless it is listed, exactly as printed,
# in .api-breakage-allowlist (with its CHANGELOG entry): a break is a decision, not an accident.
# While .api-baseline names no commit (nothing released yet), there is nothing to compare: it says
# so and succeeds.
#
#   bash Scripts/api-breakage.sh             # against .api-baseline's commit
#   bash Scripts/api-breakage.sh TREEISH     # against any commit, tag or branch (a trial)
#
# Builds in its own scratch path (API_SCRATCH, default .build-strict: the library targets built
# with warnings as errors by Scripts/strict-build.sh, so CI builds them once) and keeps each
# baseline's API, once dumped, under $API_SCRATCH/api-baselines.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${API_SCRATCH:-.build-strict}

field() { sed -nE "s/^$1=([^[:space:]#]*).*/\\1/p" .api-baseline 2>/dev/null | tail -1; }
if [ $# -gt 0 ]; then
    baseline=$1 label=$1
else
    baseline=$(field commit) label="$(field version) ($(field commit))"
    if [ -z "$baseline" ]; then
        echo "api breakage: no released version in .api-baseline yet: nothing to compare (the check starts with 0.1.0)" >&2
        exit 0
    fi
fi
if ! commit=$(git rev-parse --verify --quiet "$baseline^{commit}"); then
    echo "api breakage: $baseline is not a commit of this clone (a shallow clone? git fetch --unshallow --tags)" >&2
    exit 2
fi

# SwiftPM wants the exact messages, one a line: the allow-list without its comments.
allowlist=$(mktemp)
trap 'rm -f "$allowlist"' EXIT
grep -vE '^[[:space:]]*(#|$)' .api-breakage-allowlist 2>/dev/null >"$allowlist" || true
allow=()
[ -s "$allowlist" ] && allow=(--breakage-allowlist-path "$allowlist")

start=$(date +%s)
status=0
swift package --scratch-path "$scratch" -Xswiftc -warnings-as-errors \
    diagnose-api-breaking-changes "$commit" --baseline-dir "$scratch/api-baselines" "${allow[@]}" || status=$?
echo "api breakage: against $label, $(wc -l <"$allowlist" | tr -d ' ') allowed, in $(( $(date +%s) - start )) s" >&2
if [ "$status" != 0 ]; then
    echo "api breakage: the public API changed incompatibly. If that is intended, add each \"API breakage: ...\" line above to" \
        ".api-breakage-allowlist and say so in CHANGELOG.md (CONTRIBUTING.md, API stability)" >&2
fi
exit "$status"
