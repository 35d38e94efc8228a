#!/usr/bin/env bash
# Portability checks that need no second machine (Tests/run.sh runs them first):
#   1. self-test: the platform check must report exactly the `// expect: RULE` lines
#      of Fixtures/bad/*.swift and nothing in Fixtures/good/*.swift (so it can fail);
#   2. every Swift file of the repository (tracked or new, fixtures excepted) through
#      check_platform.py: no Glibc-only call, import or constant outside a Linux-only
#      `#if`, nothing that would stop the macOS build (rules: check_platform.py);
#   3. check_imports.py: each target imports only modules its Package.swift entry
#      declares (root package and Tests/Fuzz);
#   4. check_blocking.py: no test waits for a child process on its own thread (Swift's
#      cooperative pool) outside Tests/TestProcesses (self-test: Fixtures/blocking).
#
#   bash Tests/Portability/check.sh              # all four
#   bash Tests/Portability/check.sh FILE...      # the platform check on these files only
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

if [ $# -gt 0 ]; then
    exec python3 "$here/check_platform.py" "$@"
fi

failed=0

# 1. Self-test.
for file in "$here"/Fixtures/bad/*.swift; do
    rel=${file#"$root/"}
    expected=$(grep -n '// expect: ' "$file" | sed -E 's|^([0-9]+):.*// expect: (.*)$|\1 \2|' |
        awk -v f="$rel" '{ n = $1; $1 = ""; split($0, rules, ", *"); for (i in rules) { gsub(/ /, "", rules[i]); if (rules[i] != "") print f ":" n ": [" rules[i] "]" } }' | sort)
    found=$(python3 "$here/check_platform.py" "$rel" | sed -E 's|^([^:]+:[0-9]+: \[[a-z-]+\]).*|\1|' | sort || true)
    if [ -z "$expected" ] || [ "$expected" != "$found" ]; then
        echo "portability self-test: $rel: the check's findings differ from the file's expect marks" >&2
        diff <(echo "$expected") <(echo "$found") | sed 's/^/    /' >&2 || true
        failed=1
    fi
done
if [ "$failed" = 0 ]; then
    echo "portability self-test: every expect mark of Fixtures/bad reported, nothing else" >&2
fi
if ! out=$(python3 "$here/check_platform.py" "$here"/Fixtures/good/*.swift); then
    echo "portability self-test: the guarded fixtures were reported:" >&2
    echo "$out" >&2
    failed=1
fi

# 2. The repository's Swift files.
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.swift' 2>/dev/null |
    grep -v '^Tests/Portability/Fixtures/' | sort -u)
if [ ${#files[@]} -eq 0 ]; then
    mapfile -t files < <(find Sources Samples Tests -name '*.swift' -not -path '*/.build*' -not -path 'Tests/Portability/Fixtures/*' | sort)
fi
existing=()
for file in "${files[@]}"; do [ -f "$file" ] && existing+=("$file"); done
python3 "$here/check_platform.py" "${existing[@]}" || failed=1

# 3. Declared imports.
python3 "$here/check_imports.py" . Tests/Fuzz || failed=1

# 4. Blocking child-process waits in the tests (self-test first: every expect mark, nothing else).
expected=$(grep -n '// expect: blocking-wait' "$here/Fixtures/blocking/waits.swift" | cut -d: -f1 | tr '\n' ' ')
found=$(python3 "$here/check_blocking.py" "$here/Fixtures/blocking/waits.swift" | cut -d: -f2 | tr '\n' ' ' || true)
if [ -z "$expected" ] || [ "$expected" != "$found" ]; then
    echo "blocking-wait self-test: reported lines [$found], expected [$expected]" >&2
    failed=1
fi
tests=()
for file in "${existing[@]}"; do
    case "$file" in Tests/TestProcesses/*|Tests/Fuzz/*) ;; Tests/*) tests+=("$file") ;; esac
done
python3 "$here/check_blocking.py" "${tests[@]}" >&2 || failed=1

if [ "$failed" != 0 ]; then
    echo "portability check FAILED (see above)" >&2
    exit 1
fi
echo "portability check: ${#existing[@]} Swift files, guards, declared imports and test waits OK" >&2
