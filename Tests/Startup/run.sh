#!/usr/bin/env bash
# jwt-inspect start-up against Debian's `jose` tool (issue: "no slower than 1.5x jose").
# Builds the release binary the way it ships (static Swift runtime, position-independent:
# the script fails if `readelf -h` does not say DYN, so ASLR is never traded for speed), then
# times a full verify of the same RS256 token on the same key with hyperfine and
# prints one line per key form:
#   startup key=rsa2048.pem jwt-inspect_ms=5.41 jose_ms=3.80 ratio=1.42
# The token is passed as an argument to both tools (Debian's hyperfine 1.15 has no
# --input option); jwt-inspect reads it exactly as it reads standard input.
# Usage: bash Tests/Startup/run.sh [RUNS]   (default 300)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-300}"
need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v jose >/dev/null || need+=(jose)
command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq && $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
swift build -c release --static-swift-stdlib --product jwt-inspect 2>&1 | grep -v "warning: the use of .mktemp" | tail -1 >&2
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)/jwt-inspect"
if ! readelf -h "$bin" | grep -q 'Type: *DYN'; then
    echo "startup: $bin is not position-independent (readelf -h: $(readelf -h "$bin" | sed -n 's/^ *Type: *//p'))" >&2
    exit 1
fi
echo "startup: $(readelf -h "$bin" | sed -n 's/^ *Type: *//p')"
token="$(cat Samples/tokens/rs256.jwt)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# Both must succeed before anything is timed.
jose jws ver -i "$token" -k Keys/rsa2048.pub.jwk
"$bin" --key Keys/rsa2048.pem "$token" >/dev/null

# Each key form is timed right after its own jose run (one hyperfine call per
# pair), so that a change in machine load between pairs does not skew a ratio.
for key in rsa2048.pem rsa2048.pub.pem rsa2048.pub.jwk; do
    hyperfine -N --warmup 20 --runs "$runs" --export-json "$out/$key.json" \
        "jose jws ver -i $token -k Keys/rsa2048.pub.jwk" "$bin --key Keys/$key $token" >/dev/null 2>&1
    read -r jose_ms ours <<<"$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print("%.2f %.2f" % (r[0]["median"]*1000, r[1]["median"]*1000))' "$out/$key.json")"
    ratio="$(python3 -c "print('%.2f' % ($ours / $jose_ms))")"
    echo "startup key=$key jwt-inspect_ms=$ours jose_ms=$jose_ms ratio=$ratio"
done
