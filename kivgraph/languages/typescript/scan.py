"""One file's pass over its tree: the compiled query per grammar and the state the passes share.

The query is composed from `.scm` package data (core patterns plus the grammar's own), run once
per file; every later step works on its captures, going down from captured nodes, never up.
"""

from functools import cache
from importlib import resources

import tree_sitter as ts

from kivgraph.languages.syntax import ExportAlias, Import
from kivgraph.languages.treesitter import grammar

QUERY_FILES: dict[str, tuple[str, ...]] = {
    "typescript": ("core.scm", "typescript.scm"),
    "tsx": ("core.scm", "typescript.scm", "jsx.scm"),
    "javascript": ("core.scm", "javascript.scm", "jsx.scm"),
}


@cache
def file_query(grammar_name: str) -> ts.Query:
    package = resources.files("kivgraph.languages.typescript")
    source = "\n".join(package.joinpath(name).read_text(encoding="utf-8") for name in QUERY_FILES[grammar_name])
    return ts.Query(grammar(grammar_name), source)


class FileScan:
    """Mutable working state of one parse; the adapter turns it into a frozen `FileSyntax`."""

    __slots__ = (
        "source",
        "captures",
        "claimed",
        "declared_declarators",
        "member_keys",
        "imports",
        "exports",
        "declaration_file",
        "top_imports",
        "top_exports",
    )

    def __init__(self, source: bytes, captures: dict[str, list[ts.Node]], declaration_file: bool) -> None:
        self.source = source
        self.captures = captures
        self.claimed: set[int] = set()
        """Ids of name nodes already accounted for (declaration names, bindings, import names):
        they are never references."""
        self.declared_declarators: set[int] = set()
        """Ids of module-level variable declarators, which are declarations rather than bindings."""
        self.member_keys: set[int] = set()
        """Ids of object-literal keys that declare a member (`a` in `const handlers = { a() {} }`)."""
        self.imports: list[Import] = []
        self.exports: list[ExportAlias] = []
        self.declaration_file = declaration_file
        self.top_imports: list[ts.Node] = []
        self.top_exports: list[ts.Node] = []
        """Module-level `import` / `export` statements, in source order."""

    def nodes(self, capture: str) -> list[ts.Node]:
        return self.captures.get(capture, [])

    def text(self, node: ts.Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def string_value(node: ts.Node, source: bytes) -> str:
    """The content of a string literal node (quotes dropped, escapes left as written)."""
    raw = source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")
    if len(raw) >= 2 and raw[0] in "'\"`" and raw[-1] == raw[0]:
        return raw[1:-1]
    return raw


# py-tree-sitter raises IndexError for a child index out of range; error-recovered trees make
# "always has a child" assumptions false, so positional access goes through these.
def first_named(node: ts.Node) -> ts.Node | None:
    return node.named_child(0) if node.named_child_count else None


def last_named(node: ts.Node) -> ts.Node | None:
    count = node.named_child_count
    return node.named_child(count - 1) if count else None


def first_child(node: ts.Node) -> ts.Node | None:
    return node.child(0) if node.child_count else None
