#!/usr/bin/env bash
# Builds the package with warnings as errors: every library target, and with them the command-line
# tool, the samples and the benchmarks (everything but the tests, which Tests/run.sh checks for
# warnings on its own build), in a scratch path of its own (STRICT_SCRATCH, default .build-strict),
# so a warning fails CI. A command-line flag, not unsafeFlags in Package.swift: unsafeFlags would
# make the package unusable as a dependency. Scripts/api-breakage.sh builds the same set with the
# same flags, so after this it rebuilds nothing of the current tree.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${STRICT_SCRATCH:-.build-strict}
start=$(date +%s)
swift build --scratch-path "$scratch" -Xswiftc -warnings-as-errors
echo "strict build: warnings as errors, in $(( $(date +%s) - start )) s ($scratch)" >&2
