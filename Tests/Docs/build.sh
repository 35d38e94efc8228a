#!/usr/bin/env bash
# Builds the documentation (the catalog Sources/OIDC/OIDC.docc and the public API of
# every library product's modules, in one archive) with the toolchain's own
# `docc`: no plugin, the package has no dependencies. Fails on any DocC warning, and
# when a package-scoped internal (Base64URL, JSONParser, ...) shows up in the public API.
#
#   bash Tests/Docs/build.sh [OUTPUT_DIR]    # default .build/docs/swift-oidc-toolkit.doccarchive
#
# Symbol graphs come from `swift package dump-symbol-graph`, which reuses the debug
# build in .build (Tests/run.sh calls this after building, so it takes seconds).
# Preview: `docc preview Sources/OIDC/OIDC.docc --additional-symbol-graph-dir
# .build/docs/symbol-graphs --fallback-display-name OIDC --fallback-bundle-identifier
# swift-oidc-toolkit`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# Every library product's modules (JOSE, OIDC, OIDCNetworking, OIDCSession, ...).
mapfile -t modules < <(swift package dump-package | python3 -c '
import json, sys
manifest = json.load(sys.stdin)
seen = []
for product in manifest["products"]:
    if "library" in product["type"]:
        seen += [t for t in product["targets"] if t not in seen]
print("\n".join(seen))')
[ ${#modules[@]} -gt 0 ] || { echo "docs: no library products found" >&2; exit 2; }
output=${1:-.build/docs/swift-oidc-toolkit.doccarchive}
graphs=.build/docs/symbol-graphs

docc=$(command -v docc || true)
if [ -z "$docc" ]; then
    # Toolchains put docc next to swift (xcrun finds it on macOS).
    docc=$(dirname "$(readlink -f "$(command -v swift)")")/docc
    [ -x "$docc" ] || docc=$(xcrun --find docc 2>/dev/null || true)
fi
[ -x "$docc" ] || { echo "docs: no docc in the toolchain" >&2; exit 2; }

dump=$(swift package dump-symbol-graph --minimum-access-level public \
    --emit-extension-block-symbols 2>&1) || { echo "$dump" >&2; exit 2; }
source_dir=$(printf '%s\n' "$dump" | sed -n 's/^Files written to //p' | tail -1)
[ -d "$source_dir" ] || { echo "docs: symbol graphs not found" >&2; echo "$dump" >&2; exit 2; }
rm -rf "$graphs" && mkdir -p "$graphs"
for module in "${modules[@]}"; do
    # The module's own graph plus its extensions of other modules' types (OIDCSession@OIDC).
    cp "$source_dir/$module.symbols.json" "$graphs/"
    for extension in "$source_dir/$module@"*.symbols.json; do
        [ -e "$extension" ] && cp "$extension" "$graphs/"
    done
done

# What the modules share internally is `package`-scoped (issue 14): none of it may
# reappear in the public API (JOSE's own ContiguousBytes shadowed Foundation's).
leaked=$(python3 - "$graphs" <<'PY'
import glob, json, os, sys
internal = {"Base64URL", "JSONParser", "SecureRandom", "ConstantTime", "ContiguousBytes",
            "FormURLEncoding", "TokenHash", "Locked"}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.symbols.json"))):
    for symbol in json.load(open(path))["symbols"]:
        components = symbol["pathComponents"]
        if components[0] in internal or components[-1] == "hash(_:)":
            print(f"{os.path.basename(path)}: {'.'.join(components)}")
PY
)
if [ -n "$leaked" ]; then
    echo "docs: package internals in the public API:" >&2
    echo "$leaked" >&2
    exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
rm -rf "$output"
status=0
"$docc" convert Sources/OIDC/OIDC.docc --additional-symbol-graph-dir "$graphs" --output-path "$output" \
    --fallback-display-name OIDC --fallback-bundle-identifier swift-oidc-toolkit \
    --transform-for-static-hosting >"$log" 2>&1 || status=$?
warnings=$(grep -cE '^(warning|error):' "$log" || true)
if [ "$warnings" != 0 ] || [ "$status" != 0 ]; then
    cat "$log" >&2
    echo "docs: $warnings warnings/errors (docc exit $status): the documentation must build without any" >&2
    exit 1
fi
echo "docs: ${modules[*]} + $(ls Sources/OIDC/OIDC.docc/*.md | wc -l) catalog pages -> $output, 0 warnings" >&2
