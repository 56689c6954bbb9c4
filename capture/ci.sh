#!/usr/bin/env bash
# CI entry point of the capture tool: create (or reuse) the pinned venv, install the package into
# it (console script planezip-capture), then run pytest.
# Usage (from anywhere): capture/ci.sh [pytest args]
# The venv lives in $PLANEZIP_VENV (default ${PLANEZIP_CACHE:-~/.cache/planezip}/venv) and is
# rebuilt only when requirements*.txt change (hash stamp inside the venv). First build downloads
# ~2.8 GB (torch + its CUDA wheels) from PyPI; later runs reuse it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${PLANEZIP_CACHE:-$HOME/.cache/planezip}"
venv="${PLANEZIP_VENV:-$cache/venv}"
python="${PYTHON:-python3}"
stamp="$(cat "$here/requirements.txt" "$here/requirements-nodeps.txt" | sha256sum | cut -c1-16)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.planezip-stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "capture/ci.sh: building venv $venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q -r "$here/requirements.txt"
  "$venv/bin/pip" install -q --no-deps -r "$here/requirements-nodeps.txt"
  echo "$stamp" > "$venv/.planezip-stamp"
fi
# Install this package (no dependencies: the venv has the pinned ones) so that its console
# script `planezip-capture` exists; tests/test_installed.py runs it from this installed copy.
"$venv/bin/pip" install -q --no-deps --no-build-isolation "$here"
cd "$here"
HF_HUB_OFFLINE=1 PYTHONPATH="$here" nice -n 5 "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
