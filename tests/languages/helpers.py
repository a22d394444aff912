"""What the per-language tests share: fixture layouts, qualified names as the indexer derives
them (through `languages.scopes`, not a re-implementation), and small lookups."""

from pathlib import Path

from kivgraph.languages import RepoLayout
from kivgraph.languages.scopes import nest, qualified_names
from kivgraph.languages.syntax import Declaration, FileSyntax, Reference, Role
from kivgraph.model import SymbolKind


def fixture_layout(root: Path) -> RepoLayout:
    paths = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    return RepoLayout(paths, lambda rel: (root / rel).read_bytes())


def qualified_all(syntax: FileSyntax, separator: str = ".") -> dict[str, list[Declaration]]:
    """Qualified name → declarations, exactly as indexing names them."""
    names = qualified_names(syntax.declarations, nest(syntax.declarations), separator)
    found: dict[str, list[Declaration]] = {}
    for name, declaration in zip(names, syntax.declarations, strict=True):
        found.setdefault(name, []).append(declaration)
    return found


def qualified(syntax: FileSyntax, separator: str = ".") -> dict[str, Declaration]:
    """Qualified name → the first declaration of that name."""
    return {name: found[0] for name, found in qualified_all(syntax, separator).items()}


def declaration(syntax: FileSyntax, name: str, kind: SymbolKind | None = None) -> Declaration:
    found = [d for d in syntax.declarations if d.name == name and (kind is None or d.kind == kind)]
    assert len(found) == 1, f"expected one declaration {name!r}, found {found}"
    return found[0]


def references(syntax: FileSyntax, *names: str) -> list[Reference]:
    return [r for r in syntax.references if r.names == names]


def refs(syntax: FileSyntax, line: int | None = None) -> list[tuple[str, Role]]:
    return [(".".join(ref.names), ref.role) for ref in syntax.references if line is None or ref.line == line]


def inside(inner: Declaration, outer: Declaration) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte
