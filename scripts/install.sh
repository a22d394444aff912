#!/usr/bin/env bash
# Installs kivgraph on a fresh machine into ./.venv — the Python package with its pinned
# tree-sitter grammars — then indexes this very repository into git notes and shows the result.
# Safe to re-run; pip's cache makes repeats fast.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "kivgraph needs Python 3.11 or newer; set PYTHON=/path/to/python3.11" >&2
  exit 1
fi
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e .

echo "== kivgraph $(.venv/bin/kivgraph --version | awk '{print $NF}') installed in .venv" >&2
if git rev-parse --verify -q HEAD >/dev/null; then
  .venv/bin/kivgraph index .
  .venv/bin/kivgraph show
fi
