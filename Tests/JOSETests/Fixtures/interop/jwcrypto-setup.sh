#!/usr/bin/env bash
# Idempotent: the venv for the jwcrypto JWE interop tests (JwcryptoInteropTests),
# .venv-jwcrypto/ next to this script (ignored by git), with requirements-jwcrypto.txt.
# Tests/run.sh calls it; without Python or network the interop suite is skipped.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv="$here/.venv-jwcrypto"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import jwcrypto.jwe' 2>/dev/null; then exit 0; fi
python3 -m venv "$venv"
"$venv/bin/pip" install -q -r "$here/requirements-jwcrypto.txt"
