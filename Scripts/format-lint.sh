#!/usr/bin/env bash
# The format check of CI (.ci/stages): the toolchain's `swift format lint --strict` with the
# repository's .swift-format over Sources, Samples, Tests and Benchmarks (hidden folders such as
# Samples/hummingbird-app/.build are skipped). Prints every finding and their count; exits 1 when
# there is any. Scripts/format-fix.sh repairs what the formatter can.
#
#   bash Scripts/format-lint.sh            # the four folders
#   bash Scripts/format-lint.sh PATH...    # these files or folders only
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- Sources Samples Tests Benchmarks

if ! swift format --version >/dev/null 2>&1; then
    echo "format lint: the toolchain has no \`swift format\` (Swift 6 and later ship it)" >&2
    exit 2
fi

start=$(date +%s)
findings=$(mktemp)
trap 'rm -f "$findings"' EXIT
status=0
swift format lint --strict --recursive --parallel "$@" 2>"$findings" || status=$?
count=$(grep -cE ':[0-9]+:[0-9]+: (error|warning): ' "$findings" || true)
# Anything else on stderr (a file it could not parse, a bad configuration) is a failure too.
other=$(grep -vcE ':[0-9]+:[0-9]+: (error|warning): ' "$findings" || true)
sort "$findings" >&2
echo "format lint: $count finding(s) in $(( $(date +%s) - start )) s ($*)" >&2
if [ "$count" != 0 ] || [ "$other" != 0 ] || [ "$status" != 0 ]; then
    echo "format lint: run \`bash Scripts/format-fix.sh\`, then fix what it leaves by hand (CONTRIBUTING.md, Formatting)" >&2
    exit 1
fi
