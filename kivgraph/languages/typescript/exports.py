"""What a file's `export` statements say before its declarations are built.

Which declaration nodes an `export`/`declare` statement wraps (for their range, doc and
exported-ness), `declare global` blocks, and the names top-level `export { … }` lists make public.
"""

import tree_sitter as ts

from kivgraph.languages.syntax import ExportAlias
from kivgraph.languages.typescript.scan import FileScan, first_named


class ExportFacts:
    """What the `export` statements of a file say before declarations are built."""

    __slots__ = ("wrapper", "exported", "ambient", "listed", "bare")

    def __init__(self) -> None:
        self.wrapper: dict[int, ts.Node] = {}
        """Declaration node id → the `export`/`declare` statement around it (its range and doc)."""
        self.exported: set[int] = set()
        """Ids of declaration nodes that are exported where they are declared."""
        self.ambient: set[int] = set()
        """Ids of declaration nodes under `declare` (an ambient context)."""
        self.listed: set[str] = set()
        """Local names a top-level `export { … }` list (or a CommonJS export) makes public."""
        self.bare: dict[str, int] = {}
        """Names exported under their own name → line; an alias when the file does not declare them."""

    def list_name(self, local: str, public: str, line: int) -> None:
        self.listed.add(local)
        if local == public:
            self.bare.setdefault(local, line)


def export_facts(scan: FileScan) -> ExportFacts:
    """Which declaration nodes `export`/`declare` statements wrap, and the names export lists name."""
    facts = ExportFacts()
    wrapper, exported = facts.wrapper, facts.exported
    for ambient in scan.nodes("ambient"):
        inner = first_named(ambient)
        if inner is not None:
            wrapper[inner.id] = ambient
            facts.ambient.add(inner.id)
    for statement in scan.nodes("export"):
        declaration = statement.child_by_field_name("declaration")
        if declaration is None:
            continue
        exported.add(declaration.id)
        wrapper[declaration.id] = statement
        if declaration.type == "ambient_declaration":
            inner = first_named(declaration)
            if inner is not None:
                exported.add(inner.id)
                wrapper[inner.id] = statement
    for ambient in scan.nodes("ambient"):
        block = first_named(ambient)
        if block is None or block.type != "statement_block":
            continue
        # `declare global { … }` declares globals: visible everywhere, so exported.
        for child in block.named_children:
            exported.add(child.id)
            if child.type == "export_statement":
                inner = child.child_by_field_name("declaration")
                if inner is not None:
                    exported.add(inner.id)
    for statement in scan.top_exports:
        if statement.child_by_field_name("source") is not None:
            continue
        for clause in statement.named_children:
            if clause.type != "export_clause":
                continue
            for specifier in clause.named_children:
                name_node = specifier.child_by_field_name("name")
                if name_node is None:
                    continue
                alias_node = specifier.child_by_field_name("alias")
                scan.claimed.add(name_node.id)
                name = scan.text(name_node)
                public = name
                if alias_node is not None:
                    scan.claimed.add(alias_node.id)
                    public = scan.text(alias_node)
                line = specifier.start_point[0] + 1
                if public != name:
                    scan.exports.append(ExportAlias(public, name, line))
                facts.list_name(name, public, line)
    return facts
