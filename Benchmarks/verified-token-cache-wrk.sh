#!/usr/bin/env bash
# The verified-token cache over HTTP (issue 33): wrk against Samples/hummingbird-app's GET /api/resource with
# ES256 access tokens (Keys/p256), 1, 1 000 and 100 000 distinct tokens drawn uniformly, the cache on (the
# library's default, 10 000 entries) and off (--verified-token-cache 0). A benchmark, not a test: it prints a
# Markdown table (requests per second, mean latency, non-2xx answers), the ratio on/off of each token count
# (measured back to back, so a shared machine's load weighs on both alike), the machine it ran on and its
# load average before and after.
#
#   bash Benchmarks/verified-token-cache-wrk.sh [--duration SECONDS] [--connections N] [--threads N]
#        [--port-base PORT] [--app PATH] [--counts "1 1000 100000"]
#
# Needs wrk (Debian's package `wrk`), python3 with `cryptography` (the tokens are signed here), and a release
# build of the app (built when --app is not given: `cd Samples/hummingbird-app && swift build -c release`, slow).
# A scripted issuer (discovery and a JWK Set of Keys/p256.pub.jwk) listens on PORT (default 19400), the app on PORT+1.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
duration=10
connections=32
threads=2
port_base=19400
app=""
counts="1 1000 100000"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --duration) duration=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --port-base) port_base=$2; shift 2 ;;
        --app) app=$2; shift 2 ;;
        --counts) counts=$2; shift 2 ;;
        *) echo "usage: $0 [--duration S] [--connections N] [--threads N] [--port-base PORT] [--app PATH] [--counts \"1 1000 100000\"]" >&2; exit 2 ;;
    esac
done
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 2; }
python3 -c 'import cryptography' 2>/dev/null || { echo "python3 cryptography is missing" >&2; exit 2; }
if [[ -z "$app" ]]; then
    (cd "$root/Samples/hummingbird-app" && swift build -c release >&2)
    app="$root/Samples/hummingbird-app/.build/release/hummingbird-app"
fi

issuer_port=$port_base
app_port=$((port_base + 1))
issuer="http://127.0.0.1:$issuer_port"
base="http://127.0.0.1:$app_port"
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# The issuer: discovery and the P-256 public key, nothing else (the app only discovers and fetches keys).
cat >"$work/issuer.py" <<'PY'
import http.server, json, sys
port, jwk_path = int(sys.argv[1]), sys.argv[2]
base = f"http://127.0.0.1:{port}"
jwks = json.dumps({"keys": [json.load(open(jwk_path))]}).encode()
discovery = json.dumps({
    "issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
    "jwks_uri": base + "/jwks", "response_types_supported": ["code"], "subject_types_supported": ["public"],
    "id_token_signing_alg_values_supported": ["RS256", "ES256"],
}).encode()
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = {"/.well-known/openid-configuration": discovery, "/jwks": jwks}.get(self.path)
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")
    def log_message(self, *args): pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
PY
python3 "$work/issuer.py" "$issuer_port" "$root/Keys/p256.pub.jwk" &
pids+=($!)

# The tokens: RFC 9068 access tokens for the app (aud = its base URL), ES256 with Keys/p256.pem, one per line.
cat >"$work/tokens.py" <<'PY'
import base64, json, sys, time
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
count, issuer, audience, pem, kid = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
key = serialization.load_pem_private_key(open(pem, "rb").read(), password=None)
def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=")
header = b64(json.dumps({"alg": "ES256", "typ": "at+jwt", "kid": kid}, separators=(",", ":")).encode())
now = int(time.time())
for index in range(count):
    claims = {"iss": issuer, "sub": f"user-{index}", "aud": audience, "client_id": "bench", "iat": now, "exp": now + 3600,
              "jti": f"jti-{index}", "scope": "api.read"}
    signing_input = header + b"." + b64(json.dumps(claims, separators=(",", ":")).encode())
    r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
    print((signing_input + b"." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))).decode())
PY

cat >"$work/draw.lua" <<'LUA'
-- Each request carries one of the tokens, drawn uniformly.
local tokens = {}
init = function(args)
    for line in io.lines(args[1]) do tokens[#tokens + 1] = line end
    math.randomseed(os.time() + math.floor(os.clock() * 1000000))
end
request = function()
    return wrk.format("GET", "/api/resource", { ["Authorization"] = "Bearer " .. tokens[math.random(#tokens)] })
end
LUA

wait_for() {  # URL: polls until it answers (at most 120 s)
    for _ in $(seq 1 240); do
        curl -s -o /dev/null "$1" && return 0
        sleep 0.5
    done
    echo "no answer from $1" >&2
    return 1
}
wait_for "$issuer/jwks"

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(uname -sr)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: wrk -t$threads -c$connections -d${duration}s -s draw.lua $base/api/resource -- TOKENS_FILE (app: $app)"
echo
echo "| distinct tokens | cache | requests/s | mean latency | non-2xx |"
echo "|---:|---|---:|---:|---:|"
declare -A rates
for count in $counts; do
    python3 "$work/tokens.py" "$count" "$issuer" "$base" "$root/Keys/p256.pem" "p256-LrOOpBAi" >"$work/tokens-$count.txt"
    for cache in on off; do
        flags=()
        [[ $cache == off ]] && flags=(--verified-token-cache 0)
        "$app" --issuer "$issuer" --client-id bench --client-secret bench-secret --base-url "$base" --port "$app_port" \
            --log-level error "${flags[@]}" >"$work/app.log" 2>&1 &
        app_pid=$!
        pids+=($app_pid)
        wait_for "$base/"
        first=$(head -1 "$work/tokens-$count.txt")
        status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $first" "$base/api/resource")
        [[ $status == 200 ]] || { echo "the app refused a token ($status):" >&2; cat "$work/app.log" >&2; exit 1; }
        out=$(wrk -t"$threads" -c"$connections" -d"${duration}s" -s "$work/draw.lua" "$base/api/resource" -- "$work/tokens-$count.txt")
        rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
        latency=$(awk '/Latency/ {print $2; exit}' <<<"$out")
        non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
        echo "| $count | $cache | ${rps%.*} | $latency | ${non2xx:-0} |"
        rates["$count-$cache"]=$rps
        kill "$app_pid"
        wait "$app_pid" 2>/dev/null || true
    done
done
echo
echo "| distinct tokens | requests/s cache on / off |"
echo "|---:|---:|"
for count in $counts; do
    echo "| $count | $(awk -v on="${rates[$count-on]}" -v off="${rates[$count-off]}" 'BEGIN { printf "%.2f", (off > 0 ? on / off : 0) }') |"
done
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
