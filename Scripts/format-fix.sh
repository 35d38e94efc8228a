#!/usr/bin/env bash
# Formats the tree with the toolchain's `swift format` and the repository's .swift-format, then
# runs Scripts/format-lint.sh to show what is left for a hand (the formatter cannot shorten an
# end-of-line comment or a string literal). Exits as the lint does.
#
#   bash Scripts/format-fix.sh            # Sources, Samples, Tests, Benchmarks
#   bash Scripts/format-fix.sh PATH...    # these files or folders only
#
# The README's and the DocC articles' listings are files of Tests/ReadmeListing that the documents
# show verbatim (ReadmeListingTests). When the formatter changes such a file, every ```swift block
# of README.md and of Sources/**/*.docc/*.md that showed its old text is rewritten to the new text,
# at the block's own indentation, so the documents and the compiled listings stay the same.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- Sources Samples Tests Benchmarks

before=$(mktemp -d)
trap 'rm -rf "$before"' EXIT
for file in Tests/ReadmeListing/*.swift; do
    [ "$(basename "$file")" = ReadmeListingTests.swift ] || cp "$file" "$before/"
done

start=$(date +%s)
swift format format --in-place --recursive --parallel "$@"
echo "format fix: formatted in $(( $(date +%s) - start )) s ($*)" >&2

python3 - "$before" <<'PY'
import glob, os, sys

before = sys.argv[1]
changed = {}
for old_path in sorted(glob.glob(os.path.join(before, "*.swift"))):
    name = os.path.basename(old_path)
    old = open(old_path, encoding="utf-8").read()
    new = open(os.path.join("Tests/ReadmeListing", name), encoding="utf-8").read()
    if old != new:
        changed[name] = (old, new)
if not changed:
    sys.exit(0)

documents = ["README.md"] + sorted(glob.glob("Sources/**/*.docc/**/*.md", recursive=True))
found = {name: 0 for name in changed}
for document in documents:
    lines = open(document, encoding="utf-8").read().split("\n")
    out, index, edited = [], 0, False
    while index < len(lines):
        line = lines[index]
        trimmed = line.lstrip(" ")
        if not trimmed.startswith("```swift"):
            out.append(line)
            index += 1
            continue
        indent = len(line) - len(trimmed)
        end = index + 1
        while end < len(lines) and not lines[end].lstrip(" ").startswith("```"):
            end += 1
        body = lines[index + 1:end]
        # As ReadmeListingTests reads a block: each line loses up to the fence's indentation.
        code = "".join(l[min(indent, len(l) - len(l.lstrip(" "))):] + "\n" for l in body)
        out.append(line)
        replacement = None
        for name, (old, new) in changed.items():
            if code == old:
                replacement = new
                found[name] += 1
        if replacement is None:
            out.extend(body)
        else:
            edited = True
            out.extend((" " * indent + l) if l else "" for l in replacement[:-1].split("\n"))
        index = end
    if edited:
        open(document, "w", encoding="utf-8").write("\n".join(out))
        print(f"format fix: {document}: listings rewritten as formatted", file=sys.stderr)
for name, count in found.items():
    if count == 0:
        print(f"format fix: Tests/ReadmeListing/{name} changed, but no document showed its old text", file=sys.stderr)
PY

exec bash Scripts/format-lint.sh "$@"
