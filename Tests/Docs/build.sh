#!/usr/bin/env bash
# Builds the documentation: one DocC archive per library module, from its catalog
# Sources/<Module>/<Module>.docc and the module's public API, with the toolchain's own
# `docc` (no plugin: the package has no dependencies), then all of them merged into one.
# Fails when a library module has no catalog or no landing page, on any DocC warning, and
# when a package-scoped internal (Base64URL, JSONParser, ...) shows up in the public API.
#
#   bash Tests/Docs/build.sh [OUTPUT_DIR]    # default .build/docs: <Module>.doccarchive each,
#                                            # swift-oidc-toolkit.doccarchive merged
#
# Symbol graphs come from `swift package dump-symbol-graph`, which reuses the debug
# build in .build (`swift build` first; Tests/run.sh calls this after building).
# Each catalog sees its own module's graph and its extensions of other modules' types
# (OIDCSession@OIDC). The modules are converted in dependency order, each with the archives
# of the modules it depends on, so a link into one of those is absolute and resolves:
# ``/OIDCCore/OIDCError``, <doc:/OIDCCore/Errors>. A module cannot link to one that depends on
# it (OIDCCore to OIDC): name it in code voice. Links left unresolved by a symbol that moved
# to another module: `python3 Tests/Docs/link-across-modules.py` rewrites them from the logs
# this leaves in OUTPUT_DIR/<Module>.log.
# Preview one: `docc preview Sources/OIDC/OIDC.docc --additional-symbol-graph-dir
# .build/docs/symbol-graphs/OIDC --fallback-display-name OIDC --fallback-bundle-identifier
# swift-oidc-toolkit.OIDC`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# Every library product's modules (JOSE, OIDCCore, OIDC, OIDCNetworking, ...), each after the
# library modules it depends on and followed by them: "OIDC JOSE OIDCCore OIDCTLSTransport".
mapfile -t plan < <(swift package dump-package | python3 -c '
import json, sys
manifest = json.load(sys.stdin)
library = []
for product in manifest["products"]:
    if "library" in product["type"]:
        library += [t for t in product["targets"] if t not in library]
direct = {}
for target in manifest["targets"]:
    names = []
    for dependency in target.get("dependencies", []):
        for value in dependency.values():
            names.append(value[0] if isinstance(value, list) else value)
    direct[target["name"]] = names
def closure(name, seen):
    for dependency in direct.get(name, []):
        if dependency not in seen:
            seen.add(dependency)
            closure(dependency, seen)
    return seen
ordered, done = [], set()
def visit(name):
    if name in done:
        return
    done.add(name)
    for dependency in direct.get(name, []):
        if dependency in library:
            visit(dependency)
    ordered.append(name)
for name in library:
    visit(name)
for name in ordered:
    print(" ".join([name] + sorted(d for d in closure(name, set()) if d in library)))')
modules=()
for line in "${plan[@]}"; do modules+=("${line%% *}"); done
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

# `dump-symbol-graph` also tries the test modules, which a plain `swift build` leaves
# unbuilt, and then exits non-zero: what counts is that every library module's graph was
# written by this run.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
touch "$logs/start"
dump_status=0
dump=$(swift package dump-symbol-graph --minimum-access-level public \
    --emit-extension-block-symbols 2>&1) || dump_status=$?
source_dir=$(printf '%s\n' "$dump" | sed -n 's/^Files written to //p' | tail -1)
for module in "${modules[@]}"; do
    if [ ! -d "$source_dir" ] || [ ! "$source_dir/$module.symbols.json" -nt "$logs/start" ]; then
        echo "$dump" >&2
        echo "docs: no symbol graph for $module (dump-symbol-graph exit $dump_status): build first, swift build" >&2
        exit 2
    fi
done
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

mkdir -p "$output"
# In dependency order: a catalog links to the symbols and articles of the modules it depends
# on through their archives, with an absolute link (``/OIDCCore/OIDCError``, <doc:/OIDCCore/Errors>).
for line in "${plan[@]}"; do
    read -r module dependencies <<<"$line"
    links=()
    for dependency in $dependencies; do links+=(--dependency "$output/$dependency.doccarchive"); done
    rm -rf "$output/$module.doccarchive"
    status=0
    "$docc" convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs/$module" \
        --output-path "$output/$module.doccarchive" --fallback-display-name "$module" \
        --fallback-bundle-identifier "swift-oidc-toolkit.$module" \
        --enable-experimental-external-link-support "${links[@]}" \
        --transform-for-static-hosting >"$logs/$module.log" 2>&1 || status=$?
    echo "$status" >"$logs/$module.status"
    cp "$logs/$module.log" "$output/$module.log"  # what Tests/Docs/link-across-modules.py reads
done
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
# One site for all: the archives merged, so that links between modules work when served.
archives=()
for module in "${modules[@]}"; do archives+=("$output/$module.doccarchive"); done
rm -rf "$output/swift-oidc-toolkit.doccarchive"
merged=$("$docc" merge "${archives[@]}" --synthesized-landing-page-name swift-oidc-toolkit \
    --output-path "$output/swift-oidc-toolkit.doccarchive" 2>&1) || { echo "$merged" >&2; exit 1; }
echo "docs: ${#modules[@]} catalogs (${modules[*]}), $pages pages -> $output/<Module>.doccarchive, merged in $output/swift-oidc-toolkit.doccarchive, 0 warnings" >&2
