#!/usr/bin/env bash
# Installs kivgraph with its test extras into ./.venv and runs the whole test suite.
# Extra arguments go to pytest (for example: scripts/test.sh -k notes -x).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
exec .venv/bin/python -m pytest "$@"
