#!/usr/bin/env bash
# Idempotent setup of the test IdP: venv (.venv), pinned requirements,
# SQLite DB under run/, fixtures (user alice + three OAuth clients).
# Usage: ./setup.sh [--reset]     (--reset deletes the DB first)
# Env: IDP_PYTHON (interpreter used to create the venv; default python3)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
HERE="$(pwd)"

PY="${IDP_PYTHON:-python3}"
VENV="$HERE/.venv"
RUN="$HERE/run"
mkdir -p "$RUN"

# Serialise concurrent setups (e.g. two test processes starting IdPs at once).
if command -v flock >/dev/null 2>&1; then
    exec 9>"$RUN/.setup.lock"
    flock -w 300 9
fi

if [[ "${1:-}" == "--reset" ]]; then
    rm -f "$RUN/idp.sqlite3" "$RUN/idp.sqlite3-journal" "$RUN/idp.sqlite3-wal" "$RUN/idp.sqlite3-shm"
fi

if ! command -v "$PY" >/dev/null 2>&1; then
    echo "setup.sh: $PY not found; install Python >= 3.10 (Debian: apt-get install python3 python3-venv)" >&2
    exit 1
fi
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
    echo "setup.sh: $PY is $("$PY" -V 2>&1); Django 5.2 / django-oauth-toolkit 3.4 need Python >= 3.10" >&2
    exit 1
fi

if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
    rm -rf "$VENV"
    # Debian's python3 ships venv without ensurepip unless python3-venv is installed.
    if ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
        ver="$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
        echo "setup.sh: '$PY -m venv' cannot work here (no ensurepip)." >&2
        echo "          On Debian/Ubuntu: apt-get install -y python3-venv   (or python${ver}-venv)" >&2
        exit 1
    fi
    if ! "$PY" -m venv "$VENV"; then
        echo "setup.sh: '$PY -m venv $VENV' failed; on Debian/Ubuntu: apt-get install -y python3-venv" >&2
        rm -rf "$VENV"
        exit 1
    fi
fi

# Reinstall only when requirements.txt (or the fixtures, which start.sh then re-applies) changed since the last install.
STAMP="$VENV/.requirements.sha256"
want="$(cat requirements.txt idp/management/commands/idp_fixtures.py | sha256sum | cut -d' ' -f1)"
if [[ ! -f "$STAMP" || "$(cat "$STAMP")" != "$want" ]]; then
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r requirements.txt
    echo "$want" > "$STAMP"
fi

export DJANGO_SETTINGS_MODULE=idp.settings
"$VENV/bin/python" manage.py migrate --noinput -v 0
"$VENV/bin/python" manage.py idp_fixtures
