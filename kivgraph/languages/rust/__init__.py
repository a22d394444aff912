"""The Rust language adapter: tree-sitter syntax layer, Cargo crates and module files."""

from kivgraph.languages.rust.adapter import RustAdapter

__all__ = ["RustAdapter"]
