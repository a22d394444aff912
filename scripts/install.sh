#!/usr/bin/env bash
# Installs kivgraph on a fresh machine: the Python package with its pinned tree-sitter grammars
# into ./.venv, the pinned SCIP indexers (scip-typescript and scip-python from npm into tools/,
# scip-go and rust-analyzer built into ~/.cache/kivgraph/tools), then indexes this very repository
# into git notes and shows the result. Safe to re-run: every step is cached (the first
# rust-analyzer build takes about 7 minutes on 2 cores; later runs skip it).
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
bash scripts/install-analyzers.sh
bash scripts/install-rust-analyzer.sh >/dev/null
.venv/bin/kivgraph doctor --languages go,typescript,javascript,python,rust --strict
if git rev-parse --verify -q HEAD >/dev/null; then
  .venv/bin/kivgraph index .
  .venv/bin/kivgraph show
fi
