#!/usr/bin/env bash
# Idempotent: the venv for the 2026 interop tests (Ed25519InteropTests: RFC 9864 Ed25519 and kty AKP sets
# with jwcrypto and joserfc; generate_2026.py's ML-DSA vectors with cryptography >= 49),
# .venv-jose2026/ next to this script (ignored by git), with requirements-jose2026.txt.
# Tests/run.sh calls it; without Python or network those interop tests are skipped.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv="$here/.venv-jose2026"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import jwcrypto.jws, joserfc.jws, cryptography.hazmat.primitives.asymmetric.mldsa' 2>/dev/null; then exit 0; fi
python3 -m venv "$venv"
"$venv/bin/pip" install -q -r "$here/requirements-jose2026.txt"
