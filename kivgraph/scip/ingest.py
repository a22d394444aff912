"""SCIP ingestion: a type checker's index turned into EXACT_TYPECHECKED edges over our symbols.

Definitions are matched to the syntax layer's declarations by file and name position (never by
name alone); each reference is attributed to the declaration that encloses it, and takes its
edge kind from the syntax layer's reading of the same site (call, type, callback…). Uses of
symbols defined outside the index become external references keyed by the SCIP package. For the
files an index covers, these facts replace the fallback resolver's CANDIDATE ones.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace

from kivgraph.languages.resolve import ROLE_EDGE, Facts
from kivgraph.languages.scopes import FileScopes
from kivgraph.languages.syntax import Role as SyntaxRole
from kivgraph.model import (
    CALLABLE_KINDS,
    Confidence,
    Edge,
    EdgeKind,
    ExternalReference,
    Provenance,
    SymbolKind,
    Unresolved,
)
from kivgraph.scip.index import Role, ScipIndex, TextEncoding, is_local, parse_symbol

INTERFACE_KINDS = frozenset({SymbolKind.INTERFACE, SymbolKind.TRAIT})
HERITAGE_EDGES = frozenset({EdgeKind.IMPLEMENTS, EdgeKind.EXTENDS, EdgeKind.EMBEDS})


@dataclass(slots=True)
class SourceText:
    """Line starts of one file, to turn SCIP (line, character) into our byte offsets."""

    source: bytes
    starts: list[int]

    @classmethod
    def of(cls, source: bytes) -> "SourceText":
        starts = [0]
        position = source.find(b"\n")
        while position >= 0:
            starts.append(position + 1)
            position = source.find(b"\n", position + 1)
        return cls(source, starts)

    def byte(self, line: int, character: int, encoding: TextEncoding) -> int:
        if line >= len(self.starts):
            return len(self.source)
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.source)
        text = self.source[start:end]
        if text.isascii():
            return start + min(character, len(text))
        decoded = text.decode("utf-8", errors="replace")
        if encoding is TextEncoding.UTF16:
            units = 0
            for index, char in enumerate(decoded):
                if units >= character:
                    return start + len(decoded[:index].encode("utf-8"))
                units += 2 if ord(char) > 0xFFFF else 1
            return end
        # UTF-8 (or unspecified): SCIP counts characters of the line as the indexer saw them.
        return start + len(decoded[:character].encode("utf-8"))


@dataclass(frozen=True, slots=True)
class Site:
    path: str
    index: int
    """Declaration index in its file; -1 for the module symbol."""


@dataclass(frozen=True, slots=True)
class SiteRole:
    role: SyntaxRole
    subject: str
    """For heritage written outside the type (`impl Trait for Type`), the declaring type's name."""


def _site_roles(scopes: FileScopes, source: bytes) -> dict[int, SiteRole]:
    """Byte offset of each name syntax saw → the role it plays there.

    A path's role belongs to its last name (`a.b.run()` calls `run`); the names before it are
    read. Adapters anchor a reference at the start of its path, at its last name, or (Rust
    `crate::f`) at a qualifier; all three are read here.
    """
    roles: dict[int, SiteRole] = {}
    read = SiteRole(SyntaxRole.READ, "")
    for ref in scopes.syntax.references:
        names = [name.encode("utf-8") for name in ref.names if name]
        here = SiteRole(ref.role, ref.subject)
        start = ref.start_byte
        if not names:
            continue
        if source.startswith(names[0], start) and len(names) > 1:
            offsets: list[int] = []
            position = start
            for name in names:
                found = source.find(name, position, position + 4096)
                if found < 0:
                    break
                offsets.append(found)
                position = found + len(name)
            if len(offsets) == len(names):
                for offset in offsets[:-1]:
                    roles.setdefault(offset, read)
                roles[offsets[-1]] = here
                continue
        if source.startswith(names[-1], start):
            roles[start] = here
            continue
        found = source.find(names[-1], start, start + 4096)
        roles[found if found >= 0 else start] = here
    return roles


def _import_lines(scopes: FileScopes) -> dict[int, bool]:
    """Lines that hold an import statement → whether it re-exports."""
    return {imp.line: imp.reexport for imp in scopes.syntax.imports}


PROVENANCE_OF_TOOL = {
    "scip-typescript": Provenance.SCIP_TYPESCRIPT,
    "scip-python": Provenance.SCIP_PYTHON,
    "scip-go": Provenance.SCIP_GO,
    "rust-analyzer": Provenance.RUST_ANALYZER_SCIP,
}


def provenance_of(index: ScipIndex) -> Provenance:
    """The analysis an index came from; an index of another tool is SCIP_EXTERNAL."""
    return PROVENANCE_OF_TOOL.get(index.tool, Provenance.SCIP_EXTERNAL)


def ingest(
    index: ScipIndex,
    files: dict[str, FileScopes],
    read: Callable[[str], bytes | None],
    root: str = "",
) -> tuple[Facts, frozenset[str]]:
    """Exact facts from one SCIP index, and the set of files they now speak for.

    `root` is the repository-relative directory the indexer ran in; its document paths are
    relative to it.
    """
    if root:
        index = rebase(index, root)
    provenance = provenance_of(index)
    texts: dict[str, SourceText] = {}
    definitions: dict[str, Site] = {}
    covered: set[str] = set()
    defined_here = {
        o.symbol for d in index.documents for o in d.occurrences if o.roles & Role.DEFINITION and not is_local(o.symbol)
    }
    for document in index.documents:
        scopes = files.get(document.path)
        source = read(document.path) if scopes is not None else None
        if scopes is None or source is None:
            continue
        covered.add(document.path)
        text = texts[document.path] = SourceText.of(source)
        by_name_position = {(d.name_line, d.name_column): i for i, d in enumerate(scopes.syntax.declarations)}
        for occurrence in document.occurrences:
            if not occurrence.roles & Role.DEFINITION or is_local(occurrence.symbol):
                continue
            start = occurrence.span
            byte = text.byte(start.start_line, start.start_character, index.encoding)
            column = byte - text.starts[min(start.start_line, len(text.starts) - 1)]
            found = by_name_position.get((start.start_line + 1, column))
            if found is not None:
                known = definitions.get(occurrence.symbol)
                # A stub and its module define the same symbol: the implementation is what a
                # change breaks, so it wins over the .pyi / .d.ts whatever the document order.
                if known is None or (_is_stub(known.path) and not _is_stub(document.path)):
                    definitions[occurrence.symbol] = Site(document.path, found)
            elif (start.start_line, start.start_character) == (0, 0):  # the file's own module
                definitions.setdefault(occurrence.symbol, Site(document.path, -1))

    def key(site: Site) -> str:
        scopes = files[site.path]
        return scopes.module_key if site.index < 0 else scopes.keys[site.index]

    facts = Facts([], [], [])
    seen: set[tuple[str, str, EdgeKind, int]] = set()

    def edge(source: str, target: str, kind: EdgeKind, path: str, line: int) -> None:
        if (source, target, kind, line) not in seen:
            seen.add((source, target, kind, line))
            facts.edges.append(Edge(source, target, kind, Confidence.EXACT_TYPECHECKED, provenance, path, line))

    for document in index.documents:
        if document.path not in covered:
            continue
        scopes, text = files[document.path], texts[document.path]
        roles = _site_roles(scopes, text.source)
        import_lines = _import_lines(scopes)
        for occurrence in document.occurrences:
            if occurrence.roles & Role.DEFINITION or is_local(occurrence.symbol) or not occurrence.symbol:
                continue
            start = occurrence.span
            byte = text.byte(start.start_line, start.start_character, index.encoding)
            site = roles.get(byte)
            chain = scopes.enclosing(byte)
            source = scopes.keys[chain[0]] if chain else scopes.module_key
            if site is not None and site.subject:
                subject = scopes.heritage_subject(byte, site.subject)
                source = scopes.keys[subject] if subject >= 0 else source
            line = start.start_line + 1
            target = definitions.get(occurrence.symbol)
            if target is None:
                if occurrence.symbol in defined_here:
                    continue  # ours but not a declaration we model (a parameter, an object literal's key)
                parsed = parse_symbol(occurrence.symbol)
                if parsed is not None and parsed.descriptors:
                    symbol_path = ".".join(d.name for d in parsed.descriptors)
                    facts.external_references.append(
                        ExternalReference(source, scopes.language, parsed.package, symbol_path, document.path, line,
                                          parsed.manager, parsed.version, provenance)
                    )  # fmt: skip
                continue
            if occurrence.roles & Role.IMPORT or line in import_lines:
                kind = EdgeKind.REEXPORTS if import_lines.get(line) else EdgeKind.IMPORTS_SYMBOL
            else:
                kind = ROLE_EDGE[site.role if site is not None else SyntaxRole.READ]
                if kind in (EdgeKind.PASSES_AS_CALLBACK, EdgeKind.ASSIGNS_FUNCTION, EdgeKind.RETURNS_FUNCTION):
                    target_scopes = files[target.path]
                    if target.index < 0 or target_scopes.syntax.declarations[target.index].kind not in CALLABLE_KINDS:
                        kind = EdgeKind.REFERENCES
            edge(source, key(target), kind, document.path, line)
        for info in document.symbols:
            site = definitions.get(info.symbol)
            if site is None:
                continue
            for relation in info.relationships:
                other = definitions.get(relation.symbol)
                if other is None or not relation.is_implementation:
                    continue
                kind = _relation_kind(files, site, other)
                line = files[site.path].syntax.declarations[site.index].name_line if site.index >= 0 else 0
                edge(key(site), key(other), kind, site.path, line)
    return facts, frozenset(covered)


def rebase(index: ScipIndex, root: str) -> ScipIndex:
    """The same index with document paths made relative to the repository root."""
    prefix = root.rstrip("/") + "/"
    documents = tuple(replace(d, path=prefix + d.path) for d in index.documents)
    return replace(index, documents=documents)


def _is_stub(path: str) -> bool:
    return path.endswith((".pyi", ".d.ts"))


def _relation_kind(files: dict[str, FileScopes], site: Site, other: Site) -> EdgeKind:
    """Implementing an interface (or its method) is IMPLEMENTS; redefining a class's method, OVERRIDES."""
    target_file = files[other.path]
    if other.index < 0:
        return EdgeKind.IMPLEMENTS
    target = target_file.syntax.declarations[other.index]
    if target.kind in INTERFACE_KINDS:
        return EdgeKind.IMPLEMENTS
    parent = target_file.parents[other.index]
    if parent >= 0 and target_file.syntax.declarations[parent].kind in INTERFACE_KINDS:
        return EdgeKind.IMPLEMENTS
    source_kind = files[site.path].syntax.declarations[site.index].kind if site.index >= 0 else SymbolKind.MODULE
    return EdgeKind.OVERRIDES if source_kind in CALLABLE_KINDS else EdgeKind.EXTENDS


def replace_covered(syntax: Facts, exact: Facts, covered: frozenset[str]) -> Facts:
    """The fallback's facts for files an index does not cover, the index's facts for those it does.

    Structure (METHOD_OF) and syntax problems stay whatever the source: a type checker does not
    restate them.
    """
    exact_pairs = {(e.source, e.target) for e in exact.edges}
    kept_edges = [
        e
        for e in syntax.edges
        if e.file not in covered
        or e.kind is EdgeKind.METHOD_OF
        # Some indexers state no relationships (rust-analyzer): the syntax layer's heritage edges
        # stay, as candidates, unless the type checker connected the same pair.
        or (e.kind in HERITAGE_EDGES and (e.source, e.target) not in exact_pairs)
    ]
    kept_external = [x for x in syntax.external_references if x.file not in covered]
    kept_unresolved: list[Unresolved] = [u for u in syntax.unresolved if u.file not in covered]
    return Facts(kept_edges + exact.edges, kept_external + exact.external_references, kept_unresolved)
