#!/usr/bin/env bash
# Idempotent: the venv for the SD-JWT interop tests (CLISDJWTInteropTests), with the specification's
# reference implementation (PyPI `sd-jwt`), .venv-sdjwt/ next to this script (ignored by git).
# Tests/run.sh calls it; without Python or network the interop suite is skipped.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv="$here/.venv-sdjwt"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import sd_jwt.verifier' 2>/dev/null; then exit 0; fi
python3 -m venv "$venv"
"$venv/bin/pip" install -q -r "$here/requirements-sdjwt.txt"
