#!/usr/bin/env bash
# jwt-inspect start-up against Debian's `jose` tool (issue 36: at most 1.3x jose).
# Builds the release binary the way it ships (the CLI article's install build: static Swift
# runtime, libstdc++ linked in, position-independent), checks what start-up depends on, then
# times a full verify of the same RS256 token on the same key against jose and
# prints one line per key form:
#   startup key=rsa2048.pem jwt-inspect_ms=5.41 jose_ms=3.80 ratio=1.42
# The token is passed as an argument to both tools; jwt-inspect reads it exactly as it
# reads standard input.
# The checks, each of which fails the script (none of them is a timing):
#   - `readelf -h` says DYN: position-independent, so ASLR is never traded for speed;
#   - no libstdc++.so among the NEEDED libraries: the Swift runtime needs 26 of its symbols, and
#     loading the shared library cost ld.so ~3 300 symbol relocations (1.7M of 13M instructions
#     of an offline verify, callgrind) and 19 page faults at every start;
#   - with gdb installed: an offline verify makes no protocol-conformance lookup (each one scans
#     every conformance record linked into the binary, ~170 000 instructions).
# Usage: bash Tests/Startup/run.sh [RUNS]   (default 300)
#   STARTUP_BIN=path     check and time another build (e.g. an older commit's)
#   STARTUP_REPORT_ONLY=1  report the NEEDED and conformance-lookup checks without failing on them
#                        (to time an older build; the DYN check always applies)
#   STARTUP_SCRATCH=dir  build in this scratch path (default .build-install, the install build's own:
#                        SwiftPM keeps the build plan of a scratch path built without the -L flag)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-300}"
need=()
command -v jose >/dev/null || need+=(jose)
command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq && $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ -n "${STARTUP_BIN:-}" ]; then
    bin="$STARTUP_BIN"  # compare another build (e.g. an older commit's), same measurement
else
    # The install build (CommandLineTool article, "Installing"): a directory holding only
    # libstdc++.a comes first on the library path, so the runtime's -lstdc++ links the archive.
    scratch="${STARTUP_SCRATCH:-.build-install}"
    mkdir -p "$scratch/static-libstdc++"
    archive="$(clang -print-file-name=libstdc++.a)"
    [ -f "$archive" ] || { echo "startup: no libstdc++.a (clang -print-file-name=libstdc++.a: $archive); install libstdc++-12-dev" >&2; exit 1; }
    ln -sf "$archive" "$scratch/static-libstdc++/libstdc++.a"
    build=(swift build -c release --static-swift-stdlib --product jwt-inspect --scratch-path "$scratch"
           -Xswiftc -L"$PWD/$scratch/static-libstdc++")
    "${build[@]}" 2>&1 | grep -v "warning: the use of .mktemp" | tail -1 >&2
    bin="$("${build[@]}" --show-bin-path)/jwt-inspect"
fi
if ! readelf -h "$bin" | grep -q 'Type: *DYN'; then
    echo "startup: $bin is not position-independent (readelf -h: $(readelf -h "$bin" | sed -n 's/^ *Type: *//p'))" >&2
    exit 1
fi
echo "startup: $(readelf -h "$bin" | sed -n 's/^ *Type: *//p')"
needed="$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
echo "startup: NEEDED $needed"
if [[ " $needed" == *" libstdc++"* ]] && [ -z "${STARTUP_REPORT_ONLY:-}" ]; then
    echo "startup: $bin loads libstdc++ as a shared library (build it as the CLI article's install section says)" >&2
    exit 1
fi
token="$(cat Samples/tokens/rs256.jwt)"

# Protocol-conformance lookups on the offline path, counted with a breakpoint in the runtime.
if command -v gdb >/dev/null; then
    script="$(mktemp)"
    printf '%s\n' 'set pagination off' 'set breakpoint pending on' \
        'break swift_conformsToProtocolMaybeInstantiateSuperclasses' 'commands 1' 'silent' \
        'printf "conformance-lookup\n"' 'continue' 'end' 'run' > "$script"
    lookups="$(gdb -q -batch -x "$script" --args "$bin" --key Keys/rsa2048.pem "$token" 2>/dev/null | grep -c '^conformance-lookup' || true)"
    rm -f "$script"
    echo "startup: conformance lookups in an offline verify: $lookups"
    if [ "$lookups" -ne 0 ] && [ -z "${STARTUP_REPORT_ONLY:-}" ]; then
        echo "startup: the offline verify looked up $lookups protocol conformances (each scans every record in the binary)" >&2
        exit 1
    fi
fi

# Both must succeed before anything is timed.
jose jws ver -i "$token" -k Keys/rsa2048.pub.jwk
"$bin" --key Keys/rsa2048.pem "$token" >/dev/null

# Each key form is timed against jose in alternating rounds (jose, jwt-inspect, jose, ...):
# on a shared machine a burst of load then spoils a pair, not one side's whole series.
# jwt-inspect_ms and jose_ms are the medians of the wall times; ratio is the median of the
# per-round ratios. (hyperfine, used before, times one command's runs and then the
# other's, and its ratios swung from 0.6 to 3 under load.)
# Each row: a label, then jose's command and jwt-inspect's as JSON arrays. The key rows time a
# full verify; "decode" a plain decode without a key; "sign" an RS256 signing (jose jws sig).
claims="$(mktemp)"; trap 'rm -f "$claims"' EXIT
printf '{"sub":"alice"}' > "$claims"
jose_ver='["jose", "jws", "ver", "-i", "'"$token"'", "-k", "Keys/rsa2048.pub.jwk"]'
rows=()
for key in rsa2048.pem rsa2048.pub.pem rsa2048.pub.jwk; do
    rows+=("key=$key" "$jose_ver" '["'"$bin"'", "--key", "Keys/'"$key"'", "'"$token"'"]')
done
rows+=("case=decode" "$jose_ver" '["'"$bin"'", "'"$token"'"]')
rows+=("case=sign" '["jose", "jws", "sig", "-I", "'"$claims"'", "-k", "Keys/rsa2048.jwk", "-c"]' \
       '["'"$bin"'", "sign", "--key", "Keys/rsa2048.pem", "--alg", "RS256", "--claim", "sub=alice"]')
for ((i = 0; i < ${#rows[@]}; i += 3)); do
    python3 - "$runs" "${rows[i]}" "${rows[i+1]}" "${rows[i+2]}" <<'PY'
import json, os, statistics, sys, time
runs, key = int(sys.argv[1]), sys.argv[2]
commands = [json.loads(sys.argv[3]), json.loads(sys.argv[4])]
null = os.open(os.devnull, os.O_WRONLY)
def once(argv):
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1)])
    _, status, _ = os.wait4(pid, 0)
    if status != 0: sys.exit("startup: %s failed" % argv[0])
    return time.perf_counter() - start
for _ in range(20): [once(c) for c in commands]  # warm-up
jose, ours = [], []
for _ in range(runs):
    jose.append(once(commands[0])); ours.append(once(commands[1]))
ratio = statistics.median(b / a for a, b in zip(jose, ours))
print("startup %s jwt-inspect_ms=%.2f jose_ms=%.2f ratio=%.2f" % (key, statistics.median(ours) * 1000, statistics.median(jose) * 1000, ratio))
PY
done
