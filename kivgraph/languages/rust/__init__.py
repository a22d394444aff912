"""The Rust language adapter: tree-sitter syntax layer, Cargo crates and module files."""
