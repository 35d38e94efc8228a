#!/usr/bin/env bash
# jwt-inspect start-up against Debian's `jose` tool (issue: "no slower than 1.5x jose").
# Builds the release binary the way it ships (static Swift runtime, position-independent:
# the script fails if `readelf -h` does not say DYN, so ASLR is never traded for speed), then
# times a full verify of the same RS256 token on the same key against jose and
# prints one line per key form:
#   startup key=rsa2048.pem jwt-inspect_ms=5.41 jose_ms=3.80 ratio=1.42
# The token is passed as an argument to both tools; jwt-inspect reads it exactly as it
# reads standard input.
# Usage: bash Tests/Startup/run.sh [RUNS]   (default 300)
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
    swift build -c release --static-swift-stdlib --product jwt-inspect 2>&1 | grep -v "warning: the use of .mktemp" | tail -1 >&2
    bin="$(swift build -c release --static-swift-stdlib --show-bin-path)/jwt-inspect"
fi
if ! readelf -h "$bin" | grep -q 'Type: *DYN'; then
    echo "startup: $bin is not position-independent (readelf -h: $(readelf -h "$bin" | sed -n 's/^ *Type: *//p'))" >&2
    exit 1
fi
echo "startup: $(readelf -h "$bin" | sed -n 's/^ *Type: *//p')"
token="$(cat Samples/tokens/rs256.jwt)"

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
