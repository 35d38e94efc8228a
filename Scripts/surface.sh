#!/usr/bin/env bash
# The public surface, as issue 34 measures it: `grep -c '^\s*public '` over each library module's files,
# and OIDC + OIDCCore together (the relying party and what every role shares).
set -euo pipefail
cd "$(dirname "$0")/.."
total=0
for module in JOSE OIDCCore OIDC OIDCSession OIDCResourceServer OIDCPostgres OIDCNetworking OIDCTLSTransport; do
    [ -d "Sources/$module" ] || continue
    count=$(find "Sources/$module" -name '*.swift' -print0 | xargs -0 cat | grep -c '^\s*public ' || true)
    printf '%-20s %5d public lines\n' "$module" "$count"
    case $module in OIDC|OIDCCore) total=$((total + count)) ;; esac
done
printf '%-20s %5d public lines (wave 4 goal: at most 788, from 1 182)\n' "OIDC + OIDCCore" "$total"
