"""Python's syntax layer: tree-sitter queries (package data), extraction, module resolution."""

from kivgraph.languages.python.adapter import PythonAdapter

__all__ = ["PythonAdapter"]
