"""kivgraph: a Git-native code graph that answers "what breaks if I change this?".

The public API is the model types and the entry points below; everything else is internal.
"""

from kivgraph.errors import KivgraphError
from kivgraph.model import (
    Confidence,
    Edge,
    EdgeKind,
    ExternalReference,
    FileRecord,
    Generation,
    GenerationHeader,
    InvisibleScope,
    Language,
    Package,
    Provenance,
    Symbol,
    SymbolKind,
    Unresolved,
)

__version__ = "0.1.0"

__all__ = [
    "Confidence",
    "Edge",
    "EdgeKind",
    "ExternalReference",
    "FileRecord",
    "Generation",
    "GenerationHeader",
    "InvisibleScope",
    "KivgraphError",
    "Language",
    "Package",
    "Provenance",
    "Symbol",
    "SymbolKind",
    "Unresolved",
    "__version__",
]
