#!/usr/bin/env bash
# Installs kivgraph on a fresh machine: the Python package with its pinned tree-sitter grammars
# into ./.venv, then every pinned SCIP indexer with `kivgraph analyzers install --languages all`
# (scip-typescript and scip-python by `npm ci` of the lockfile kivgraph ships, scip-go by
# `go install`, rust-analyzer from rustup's component or else built from crates.io, all into
# ~/.cache/kivgraph/tools), then indexes this very repository into git notes and shows the result.
# Safe to re-run: every step is cached (a crates.io build of rust-analyzer takes about 20 minutes
# on 2 cores the first time; later runs skip it).
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
.venv/bin/kivgraph analyzers install . --languages all
.venv/bin/kivgraph doctor --languages go,typescript,javascript,python,rust --strict
if git rev-parse --verify -q HEAD >/dev/null; then
  .venv/bin/kivgraph index .
  .venv/bin/kivgraph show
fi
