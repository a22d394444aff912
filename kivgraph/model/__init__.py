"""The generation's in-memory model: enums, value types and stable keys. Pure data, no I/O."""

from kivgraph.model.enums import (
    CALLABLE_KINDS,
    EXACT_CONFIDENCES,
    STRUCTURE_EDGE_KINDS,
    TYPE_KINDS,
    Confidence,
    EdgeKind,
    FileStatus,
    Language,
    Provenance,
    SymbolKind,
)
from kivgraph.model.keys import canonical_identity, is_stable_key, stable_key
from kivgraph.model.types import (
    Edge,
    ExternalReference,
    FileRecord,
    Generation,
    GenerationHeader,
    InvisibleScope,
    Package,
    Symbol,
    Unresolved,
    last_name,
)

__all__ = [
    "last_name",
    "CALLABLE_KINDS",
    "EXACT_CONFIDENCES",
    "STRUCTURE_EDGE_KINDS",
    "TYPE_KINDS",
    "Confidence",
    "Edge",
    "EdgeKind",
    "ExternalReference",
    "FileRecord",
    "FileStatus",
    "Generation",
    "GenerationHeader",
    "InvisibleScope",
    "Language",
    "Package",
    "Provenance",
    "Symbol",
    "SymbolKind",
    "Unresolved",
    "canonical_identity",
    "is_stable_key",
    "stable_key",
]
