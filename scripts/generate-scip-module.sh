#!/usr/bin/env bash
# Regenerates kivgraph/scip/scip_subset_pb2.py (+ .pyi) from kivgraph/scip/scip_subset.proto.
# Needs grpcio-tools (a development tool only: the generated module is committed, and at run
# time only the pinned `protobuf` runtime is needed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
.venv/bin/python -m pip install --quiet --disable-pip-version-check "grpcio-tools==1.85.1"
cd kivgraph/scip
../../.venv/bin/python -m grpc_tools.protoc -I. --python_out=. --pyi_out=. scip_subset.proto
