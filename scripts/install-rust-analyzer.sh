#!/usr/bin/env bash
# Installs rust-analyzer (kivgraph runs `rust-analyzer scip`): a thin wrapper over
# `kivgraph analyzers install --languages rust`, which takes the toolchain's own component when
# `rustup component add rust-analyzer` works and supports `scip`, else builds the pinned
# ra_ap_rust-analyzer from crates.io into the tools cache (about 20 minutes on 2 cores the first
# time; the reasons are in kivgraph/scip/install.py). Extra arguments go to it, for example `--json`.
set -euo pipefail
kivgraph="$(dirname "${BASH_SOURCE[0]}")/../.venv/bin/kivgraph"
[ -x "$kivgraph" ] || kivgraph=kivgraph
exec "$kivgraph" analyzers install --languages rust "$@"
