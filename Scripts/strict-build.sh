#!/usr/bin/env bash
# Builds every library target (the targets of the package's library products) with warnings as
# errors, in its own scratch path (STRICT_SCRATCH, default .build-strict), so a warning in the
# library fails CI. A command-line flag, not unsafeFlags in Package.swift: unsafeFlags would make
# the package unusable as a dependency. Scripts/api-breakage.sh reuses this build.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${STRICT_SCRATCH:-.build-strict}
start=$(date +%s)
targets=$(swift package --scratch-path "$scratch" dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
names = []
for product in package["products"]:
    if "library" in product["type"]:
        names += [t for t in product["targets"] if t not in names]
print(" ".join(names))')
for target in $targets; do
    echo "==> strict build: $target" >&2
    swift build --scratch-path "$scratch" -Xswiftc -warnings-as-errors --target "$target"
done
echo "strict build: $(wc -w <<<"$targets" | tr -d ' ') library targets, warnings as errors, in $(( $(date +%s) - start )) s" >&2
