"""Go's syntax layer: tree-sitter queries (package data), extraction, module resolution."""

from kivgraph.languages.go.adapter import GoAdapter

__all__ = ["GoAdapter"]
