#!/usr/bin/env bash
# Builds the documentation: one DocC archive per library module, from its catalog
# Sources/<Module>/<Module>.docc and the module's public API, with the toolchain's own
# `docc` (no plugin: the package has no dependencies). Fails when a library module has
# no catalog or no landing page, on any DocC warning, and when a package-scoped internal
# (Base64URL, JSONParser, ...) shows up in the public API.
#
#   bash Tests/Docs/build.sh [OUTPUT_DIR]    # default .build/docs: <Module>.doccarchive each
#
# Symbol graphs come from `swift package dump-symbol-graph`, which reuses the debug
# build in .build (Tests/run.sh calls this after building, so it takes seconds).
# Each catalog sees its own module's graph and its extensions of other modules' types
# (OIDCSession@OIDC), not the graphs of the modules it imports: a link to another
# module's symbol is written as code voice (`JWKSet`), a link to another catalog's
# article as plain text naming it.
# Preview one: `docc preview Sources/OIDC/OIDC.docc --additional-symbol-graph-dir
# .build/docs/symbol-graphs/OIDC --fallback-display-name OIDC --fallback-bundle-identifier
# swift-oidc-toolkit.OIDC`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# Every library product's modules (JOSE, OIDCCore, OIDC, OIDCNetworking, ...).
mapfile -t modules < <(swift package dump-package | python3 -c '
import json, sys
manifest = json.load(sys.stdin)
seen = []
for product in manifest["products"]:
    if "library" in product["type"]:
        seen += [t for t in product["targets"] if t not in seen]
print("\n".join(seen))')
[ ${#modules[@]} -gt 0 ] || { echo "docs: no library products found" >&2; exit 2; }
output=${1:-.build/docs}
graphs=.build/docs/symbol-graphs

# Every library module has a catalog with a landing page titled with the module's symbol.
missing=()
for module in "${modules[@]}"; do
    landing=Sources/$module/$module.docc/$module.md
    if [ ! -f "$landing" ] || ! head -1 "$landing" | grep -qx "# \`\`$module\`\`"; then
        missing+=("$landing")
    fi
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "docs: a library module without a catalog landing page (# \`\`Module\`\`): ${missing[*]}" >&2
    exit 1
fi

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
    mkdir -p "$graphs/$module"
    cp "$source_dir/$module.symbols.json" "$graphs/$module/"
    for extension in "$source_dir/$module@"*.symbols.json; do
        [ -e "$extension" ] && cp "$extension" "$graphs/$module/"
    done
done

# What the modules share internally is `package`-scoped (issue 14): none of it may
# reappear in the public API (JOSE's own ContiguousBytes shadowed Foundation's).
leaked=$(python3 - "$graphs" <<'PY'
import glob, json, os, sys
internal = {"Base64URL", "JSONParser", "SecureRandom", "ConstantTime", "ContiguousBytes",
            "FormURLEncoding", "TokenHash", "Locked"}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*.symbols.json"))):
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

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
mkdir -p "$output"
# Two conversions at a time; each module's log is read after all have finished.
pids=()
for module in "${modules[@]}"; do
    (
        rm -rf "$output/$module.doccarchive"
        status=0
        "$docc" convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs/$module" \
            --output-path "$output/$module.doccarchive" --fallback-display-name "$module" \
            --fallback-bundle-identifier "swift-oidc-toolkit.$module" \
            --transform-for-static-hosting >"$logs/$module.log" 2>&1 || status=$?
        echo "$status" >"$logs/$module.status"
    ) &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait
failed=0
pages=0
for module in "${modules[@]}"; do
    status=$(cat "$logs/$module.status")
    warnings=$(grep -cE '^(warning|error):' "$logs/$module.log" || true)
    if [ "$warnings" != 0 ] || [ "$status" != 0 ]; then
        cat "$logs/$module.log" >&2
        echo "docs: $module: $warnings warnings/errors (docc exit $status): the documentation must build without any" >&2
        failed=1
    fi
    pages=$((pages + $(ls "Sources/$module/$module.docc/"*.md | wc -l)))
done
[ "$failed" = 0 ] || exit 1
echo "docs: ${#modules[@]} catalogs (${modules[*]}), $pages pages -> $output/<Module>.doccarchive, 0 warnings" >&2
