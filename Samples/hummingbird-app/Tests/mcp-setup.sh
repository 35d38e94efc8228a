#!/usr/bin/env bash
# Idempotent: the venv for the MCP tests (app_tests.py part "mcp": the Python MCP SDK from PyPI as an
# outside client of the app's /mcp, and as a server for sample-mcp-call), .venv-mcp/ next to this script
# (ignored by git), with requirements-mcp.txt. Samples/hummingbird-app/Tests/run.sh calls it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv="$here/.venv-mcp"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import mcp.client.streamable_http' 2>/dev/null; then exit 0; fi
python3 -m venv "$venv"
"$venv/bin/pip" install -q -r "$here/requirements-mcp.txt"
