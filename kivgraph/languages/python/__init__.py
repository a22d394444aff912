"""Python's syntax layer: tree-sitter queries (package data), extraction, module resolution."""
