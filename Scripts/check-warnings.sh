#!/usr/bin/env bash
# Fails when a build log holds a compiler warning (Tests/run.sh passes it the log of its
# `swift build --build-tests`). Only a build from a clean scratch path compiles every file, so
# only such a log (CI's, from a fresh clone) is complete; an incremental one shows the files it
# recompiled.
#
#   bash Scripts/check-warnings.sh BUILD_LOG
#
# Warnings that cannot be avoided (from system headers or the toolchain) would be listed here, one
# extended regular expression each, with the reason. Today there are none.
set -euo pipefail
log=${1:?usage: check-warnings.sh BUILD_LOG}
allowed=(
)
warnings=$(grep -E '(^|[[:space:]])warning: ' "$log" | grep -vE '^[[:space:]]*\|' | sort -u || true)
for pattern in "${allowed[@]}"; do
    warnings=$(grep -vE "$pattern" <<<"$warnings" || true)
done
if [ -n "$warnings" ]; then
    # With the file and line each warning names (an expanded macro's note gives them).
    grep -E '(^|[[:space:]])warning: |expanded code originates here' "$log" | grep -vE '^[[:space:]]*\|' | sort -u >&2
    echo "build warnings: $(wc -l <<<"$warnings" | tr -d ' ') distinct warning(s) in $log" >&2
    exit 1
fi
echo "build warnings: none in $log" >&2
