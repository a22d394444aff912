"""SCIP: decoding indexes that standard indexers produce, and ingesting them as exact edges.

`scip_subset.proto` declares the fields kivgraph reads; `scip_subset_pb2` is generated from it
(scripts/generate-scip-module.sh) and is the only generated code in the package.
"""
