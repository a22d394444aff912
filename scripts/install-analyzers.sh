#!/usr/bin/env bash
# Installs the pinned SCIP indexers for TypeScript/JavaScript, Python and Go into the tools cache:
# a thin wrapper over `kivgraph analyzers install` (which a pip-installed kivgraph has too; see
# docs/cli.md). Extra arguments go to it, for example `--json`. rust-analyzer: install-rust-analyzer.sh.
set -euo pipefail
kivgraph="$(dirname "${BASH_SOURCE[0]}")/../.venv/bin/kivgraph"
[ -x "$kivgraph" ] || kivgraph=kivgraph
exec "$kivgraph" analyzers install --languages typescript,javascript,python,go "$@"
