"""SCIP ingestion: a type checker's index turned into EXACT_TYPECHECKED edges over our symbols.

Definitions are matched to the syntax layer's declarations by file and name position (never by
name alone); each reference is attributed to the declaration that encloses it, and takes its
edge kind from the syntax layer's reading of the same site (call, type, callback…). Uses of
symbols defined outside the index become external references keyed by the SCIP package. For the
files an index covers, these facts replace the fallback resolver's CANDIDATE ones.
"""

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from kivgraph.languages import RepoLayout
from kivgraph.languages.python.exact import name_at, redeclares, slot_field
from kivgraph.languages.python.gaps import PythonGaps
from kivgraph.languages.python.modules import module_files, search_bases
from kivgraph.languages.resolve import ROLE_EDGE, Facts
from kivgraph.languages.scopes import FileScopes
from kivgraph.languages.syntax import Role as SyntaxRole
from kivgraph.languages.typescript.manifests import manifests
from kivgraph.model import (
    CALLABLE_KINDS,
    FUNCTION_VALUE_KINDS,
    Confidence,
    Edge,
    EdgeKind,
    ExternalReference,
    Provenance,
    SymbolKind,
    Unresolved,
    last_name,
)
from kivgraph.scip.declaration_maps import DeclarationMap, SourceMapError
from kivgraph.scip.index import Document, Occurrence, Role, ScipIndex, TextEncoding
from kivgraph.scip.late import LateDefinition, LateGo, LateSites, LateUse
from kivgraph.scip.symbols import Descriptor, ScipSymbol, Suffix, is_local, parse_symbol

DEFINITION, IMPORT = int(Role.DEFINITION), int(Role.IMPORT)
_TYPE_LITERAL = re.compile(r"typeLiteral\d+")
LOCALS_FOLLOWED = frozenset({Provenance.SCIP_TYPESCRIPT})
"""The indexes whose local symbols ingestion follows (scip-typescript names an object literal's
method by one); the local occurrences of any other need not even be loaded."""
INTERFACE_KINDS = frozenset({SymbolKind.INTERFACE, SymbolKind.TRAIT})
HERITAGE_EDGES = frozenset({EdgeKind.IMPLEMENTS, EdgeKind.EXTENDS, EdgeKind.EMBEDS})


@dataclass(slots=True)
class SourceText:
    """Line starts of one file, to turn SCIP (line, character) into our byte offsets."""

    source: bytes
    starts: list[int]
    ascii: bool
    """Whether every line is ASCII, where characters are bytes whatever the encoding."""

    @classmethod
    def of(cls, source: bytes) -> "SourceText":
        starts = [0]
        position = source.find(b"\n")
        while position >= 0:
            starts.append(position + 1)
            position = source.find(b"\n", position + 1)
        return cls(source, starts, source.isascii())

    def byte(self, line: int, character: int, encoding: TextEncoding) -> int:
        if line >= len(self.starts):
            return len(self.source)
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.source)
        if self.ascii:
            return start + min(character, end - start)
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
    kinds: dict[tuple[SyntaxRole, str], SiteRole] = {}
    for ref in scopes.syntax.references:
        here = kinds.get((ref.role, ref.subject))
        if here is None:
            here = kinds[(ref.role, ref.subject)] = SiteRole(ref.role, ref.subject)
        start = ref.start_byte
        if len(ref.names) == 1:  # most references: one name, nothing before it
            last = ref.names[0].encode("utf-8")
            if not last:
                continue
        else:
            names = [name.encode("utf-8") for name in ref.names if name]
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
            last = names[-1]
        if source.startswith(last, start):
            roles[start] = here
            continue
        found = source.find(last, start, start + 4096)
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


class Ingested(NamedTuple):
    facts: Facts
    covered: frozenset[str]
    """The files the index speaks for."""
    resolved: frozenset[tuple[str, int, str]]
    """(path, line, name) of every use the type checker resolved, to retire the blind spots it cleared."""
    shorthands: frozenset[tuple[str, int, str]] = frozenset()
    """(path, line, source key) of shorthand keys `{ run }` the index resolved only to the member
    they implement (scip-typescript, in a contextually typed literal): the syntax layer's edge to
    the binding they name stays, as a candidate."""


def ingest(
    index: ScipIndex,
    files: dict[str, FileScopes],
    read: Callable[[str], bytes | None],
    root: str = "",
    layout: RepoLayout | None = None,
    facts_of: frozenset[str] | None = None,
    late: LateSites | None = None,
) -> Ingested:
    """Exact facts from one SCIP index, the files they now speak for and the uses it resolved.

    `root` is the repository-relative directory the indexer ran in; its document paths are
    relative to it. `layout` (the whole tree) lets our own package's emitted declarations, as a
    copy installed in node_modules names them, lead back to their sources. `facts_of`: the files
    whose facts are wanted (None: every one); the index's other documents give their definitions.
    `late` (a shard's Go index): where the uses it cannot bind are held, with the definitions
    other shards' uses may bind to (kivgraph/scip/late.py).
    """
    if root:
        index = rebase(index, root)
    provenance = provenance_of(index)
    texts: dict[str, SourceText] = {}
    definitions: dict[str, Site] = {}
    local_sites: dict[tuple[str, str], Site] = {}
    """scip-typescript names an object literal's method by a local symbol; within its document."""
    follow_locals = provenance in LOCALS_FOLLOWED
    typescript = provenance is Provenance.SCIP_TYPESCRIPT
    python = provenance is Provenance.SCIP_PYTHON
    covered: set[str] = set()
    defined_here = {
        o.symbol for d in index.documents for o in d.occurrences if o.roles & DEFINITION and not is_local(o.symbol)
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
            if not occurrence.roles & DEFINITION or (is_local(occurrence.symbol) and not follow_locals):
                continue
            start = occurrence.span
            byte = text.byte(start.start_line, start.start_character, index.encoding)
            column = byte - text.starts[min(start.start_line, len(text.starts) - 1)]
            found = by_name_position.get((start.start_line + 1, column))
            if found is not None and is_local(occurrence.symbol):
                local_sites[(document.path, occurrence.symbol)] = Site(document.path, found)
            elif found is not None:
                known = definitions.get(occurrence.symbol)
                # A stub and its module define the same symbol: the implementation is what a
                # change breaks, so it wins over the .pyi / .d.ts whatever the document order.
                if known is None or (_is_stub(known.path) and not _is_stub(document.path)):
                    definitions[occurrence.symbol] = Site(document.path, found)
            elif (start.start_line, start.start_character) == (0, 0):  # the file's own module
                definitions.setdefault(occurrence.symbol, Site(document.path, -1))

    own = frozenset((parsed.manager, parsed.package) for parsed in map(parse_symbol, defined_here) if parsed)
    targets = Targets(files, read, definitions, own, layout)

    def key(site: Site) -> str:
        scopes = files[site.path]
        return scopes.module_key if site.index < 0 else scopes.keys[site.index]

    if late is not None:
        _export(index, definitions, files, key, late)

    def key_of(symbol: str) -> str | None:
        found = targets.find(symbol)
        return key(found[0]) if found is not None else None

    facts = Facts([], [], [])
    seen: set[tuple[str, str, EdgeKind, int]] = set()
    resolved: set[tuple[str, int, str]] = set()
    shorthands: set[tuple[str, int, str]] = set()

    def edge(source: str, target: str, kind: EdgeKind, path: str, line: int, confidence: Confidence) -> None:
        if (source, target, kind, line) not in seen:
            seen.add((source, target, kind, line))
            facts.edges.append(Edge(source, target, kind, confidence, provenance, path, line))

    bases = _class_bases(index) if python else {}
    for document in index.documents:
        if document.path not in covered:
            continue
        if facts_of is not None and document.path not in facts_of:
            _relations(document, definitions, targets, files, key, edge, facts_of, late)
            continue
        scopes, text = files[document.path], texts[document.path]
        roles = _site_roles(scopes, text.source)
        import_lines = _import_lines(scopes)
        bare = _bare_values(scopes) if typescript else frozenset[int]()
        gaps = _python_gaps(index, document, files, read, text, key_of, bases, edge) if python else None
        for occurrence in document.occurrences:
            if occurrence.roles & DEFINITION or not occurrence.symbol:
                continue
            local = None
            if is_local(occurrence.symbol):
                local = _local_member(occurrence, document.path, local_sites, scopes, text, index.encoding)
                if local is None:
                    continue
            start = occurrence.span
            byte = text.byte(start.start_line, start.start_character, index.encoding)
            if python and redeclares(text.source, byte):
                continue  # `def f` again (an overload, a redefinition) declares; it does not use
            site = roles.get(byte)
            chain = scopes.enclosing(byte)
            source = scopes.keys[chain[0]] if chain else scopes.module_key
            if site is not None and (site.subject or site.role is SyntaxRole.EMBEDS):
                subject = scopes.heritage_subject(byte, site.subject)
                source = scopes.keys[subject] if subject >= 0 else source
            line = start.start_line + 1
            parsed = parse_symbol(occurrence.symbol)
            if parsed is not None and parsed.descriptors:
                resolved.add((document.path, line, parsed.name))
                if python and parsed.name == "__init__" and parsed.descriptors[-1].suffix is Suffix.META:
                    resolved.add((document.path, line, ""))  # a module: what `import pkg` asked for
            member_key = byte in bare and _names_member(parsed)
            if member_key:
                shorthands.add((document.path, line, source))
            found = (local, Confidence.EXACT_TYPECHECKED) if local is not None else targets.find(occurrence.symbol)
            kind = _site_kind(bool(occurrence.roles & IMPORT), import_lines.get(line), site, member_key)
            if found is not None and occurrence.symbol in targets.through_holder:
                if key(found[0]) == source:
                    continue  # a function's use of its own parameter, a class's of its own member
                kind = EdgeKind.REFERENCES
            if found is None:
                if occurrence.symbol in defined_here or occurrence.symbol in targets.unmodeled:
                    continue  # ours but not a declaration we model (a parameter, an object literal's key)
                if late is not None and (held := late.held(document.path, occurrence.symbol)) is not None:
                    late.use(LateUse(source, occurrence.symbol, held, kind, document.path, line))
                    continue  # another shard's module: the merge binds it (kivgraph/scip/late.py)
                if parsed is not None and parsed.descriptors:
                    symbol_path = ".".join(d.name for d in parsed.descriptors)
                    facts.external_references.append(
                        ExternalReference(source, scopes.language, parsed.package, symbol_path, document.path, line,
                                          parsed.manager, parsed.version, provenance, kind)
                    )  # fmt: skip
                continue
            target, confidence = found
            if python and target.index >= 0:
                written = name_at(text.source, byte)
                field = slot_field(files[target.path], target.index, written)
                if field >= 0:  # scip-python names the class for a use of one of its `__slots__`
                    target = Site(target.path, field)
                    resolved.add((document.path, line, written))
            if kind in FUNCTION_VALUE_KINDS:
                target_scopes = files[target.path]
                if target.index < 0 or target_scopes.syntax.declarations[target.index].kind not in CALLABLE_KINDS:
                    kind = EdgeKind.REFERENCES
            edge(source, key(target), kind, document.path, line, confidence)
            if gaps is not None and parsed is not None:
                gaps.union(byte, occurrence.symbol, source, kind, line)
        if gaps is not None:
            gaps.exports()
            facts.unresolved.extend(gaps.unresolved)
        _relations(document, definitions, targets, files, key, edge, facts_of, late)
    return Ingested(facts, frozenset(covered), frozenset(resolved), frozenset(shorthands))


def _relations(document: Document, definitions: dict[str, Site], targets: "Targets", files: dict[str, FileScopes],
               key: Callable[[Site], str], edge: Callable[[str, str, EdgeKind, str, int, Confidence], None],
               facts_of: frozenset[str] | None, late: LateSites | None = None) -> None:  # fmt: skip
    """The edges of what the document's symbols implement, each stated at its definition (which
    may be in another document: a TypeScript interface merged from two files); those `late`
    holds, held there."""
    for info in document.symbols:
        site = definitions.get(info.symbol)
        if site is None or (facts_of is not None and site.path not in facts_of):
            continue
        for relation in info.relationships:
            found = targets.find(relation.symbol) if relation.is_implementation else None
            line = files[site.path].syntax.declarations[site.index].name_line if site.index >= 0 else 0
            if found is None and relation.is_implementation and late is not None:
                held = late.held(document.path, relation.symbol)
                declarations = files[site.path].syntax.declarations
                callable_source = site.index >= 0 and declarations[site.index].kind in CALLABLE_KINDS
                if held is not None:
                    late.use(LateUse(key(site), relation.symbol, held, EdgeKind.IMPLEMENTS, site.path, line,
                                     relation=True, source_callable=callable_source))  # fmt: skip
            if found is None or relation.symbol in targets.through_holder:
                continue  # implementing a member we do not model is not implementing what holds it
            other, confidence = found
            kind = _relation_kind(files, site, other)
            edge(key(site), key(other), kind, site.path, line, confidence)


def _export(
    index: ScipIndex,
    definitions: dict[str, Site],
    files: dict[str, FileScopes],
    key: Callable[[Site], str],
    late: LateSites,
) -> None:
    """The definitions of the index's modules that other modules load from the tree, for the uses
    of them another shard holds: each symbol once, with what binding a use to it needs."""
    seen: set[str] = set()
    for document in index.documents:
        root = late.root_of(document.path)
        if root is None or not late.exports(root):
            continue
        for occurrence in document.occurrences:
            symbol = occurrence.symbol
            if not occurrence.roles & DEFINITION or is_local(symbol) or symbol in seen:
                continue
            seen.add(symbol)
            site = definitions.get(symbol)
            if site is None:
                late.define(root, LateDefinition(symbol, None, False, False))
                continue
            declarations = files[site.path].syntax.declarations
            callable_target = site.index >= 0 and declarations[site.index].kind in CALLABLE_KINDS
            implemented = _implemented(files, site)
            late.define(root, LateDefinition(symbol, key(site), callable_target, implemented))


def _site_kind(imported: bool, reexported: bool | None, site: SiteRole | None, member_key: bool) -> EdgeKind:
    """The relation a use site has with what it names, whether that is ours or another package's."""
    if imported or reexported is not None:
        return EdgeKind.REEXPORTS if reexported else EdgeKind.IMPORTS_SYMBOL
    kind = ROLE_EDGE[site.role if site is not None else SyntaxRole.READ]
    if member_key and kind is not EdgeKind.IMPLEMENTS:
        return EdgeKind.REFERENCES  # a key naming the member, not a function value
    return kind


def _bare_values(scopes: FileScopes) -> frozenset[int]:
    """Bytes of names used bare as values (`x = run`, `{ k: run }`, the shorthand `{ run }`)."""
    return frozenset(
        r.start_byte for r in scopes.syntax.references if r.role is SyntaxRole.ASSIGN and len(r.names) == 1
    )


def _names_member(parsed: ScipSymbol | None) -> bool:
    """A member of a type (`Action#run().`): what a bare name resolves to only as an object key."""
    return parsed is not None and len(parsed.descriptors) > 1 and parsed.descriptors[-2].suffix is Suffix.TYPE


def _local_member(occurrence: Occurrence, path: str, local_sites: dict[tuple[str, str], Site], scopes: FileScopes,
                  text: SourceText, encoding: TextEncoding) -> Site | None:  # fmt: skip
    """The declaration a local symbol names in its own document, when the name written here is
    its name: scip-typescript's locals are numbered per document, and one from another document
    can carry the same number."""
    site = local_sites.get((path, occurrence.symbol))
    if site is None:
        return None
    name = scopes.syntax.declarations[site.index].name.encode("utf-8")
    byte = text.byte(occurrence.span.start_line, occurrence.span.start_character, encoding)
    return site if text.source.startswith(name, byte) else None


RUST_LIBRARY_URL = "https://github.com/rust-lang/rust/library/"


def rust_library_alias(symbol: str) -> str:
    """The standard library's other spelling of a symbol, or "".

    rust-analyzer names a standard-library crate `core 0.0.0` from inside the library's own
    workspace and `core https://github.com/rust-lang/rust/library/core` where it loaded the
    toolchain's copy (its tests, build scripts, and every other project): one declaration.
    """
    fields = symbol.split(" ", 4)
    if len(fields) < 5 or fields[0] != "rust-analyzer" or fields[3] != RUST_LIBRARY_URL + fields[2]:
        return ""
    return " ".join((*fields[:3], "0.0.0", fields[4]))


class Targets:
    """Where in our tree the declaration a SCIP symbol names lives, and how that is known.

    An index defines most of the symbols it references. A declaration file it did not index
    (a `.d.ts` reached through `paths` or a workspace link) is still named by the file path its
    symbols begin with, and the rest of the symbol is the qualified name within that file — when
    the symbol is of a package the index itself defines. Another package's paths are relative to
    that package: when it is a package of the tree (a package.json of that name and version, as
    scip-typescript names a file by the closest one above it — a sibling reached through tsconfig
    `paths` or a workspace link), `src/index.ts` of `@shop/core` is that package's file and its
    uses are edges like any other; else they are external. A file with no package.json above it is
    named by its absolute path. A `.d.ts` emitted with a declaration map leads on to the source
    declaration it was compiled from (EXACT_DECLARATION_MAPPED): that, not the generated file, is
    what a change breaks.
    """

    def __init__(self, files: dict[str, FileScopes], read: Callable[[str], bytes | None],
                 definitions: dict[str, Site], own: frozenset[tuple[str, str]],
                 layout: RepoLayout | None = None) -> None:  # fmt: skip
        self.files, self.read, self.definitions, self.layout = files, read, definitions, layout
        self.roots: dict[tuple[str, str], list[str]] = {}
        self.own = own
        """(manager, package) of every symbol the index defines."""
        self.names: dict[str, dict[str, int]] = {}
        self.maps: dict[str, DeclarationMap | None] = {}
        self.found: dict[str, tuple[Site, Confidence] | None] = {}
        self.unmodeled: set[str] = set()
        """Symbols of a file of the tree that nothing in it declares (an anonymous object's
        property, `client.spec.ts/query0`): ours, but no declaration we model — never external."""
        self.through_holder: set[str] = set()
        """Symbols of members we do not model, found as the declaration that holds them: a use of
        one is a REFERENCES of that declaration, whatever the site does with the member."""

    def find(self, symbol: str) -> tuple[Site, Confidence] | None:
        if symbol not in self.found:
            site = (
                self.definitions.get(symbol)
                or self.definitions.get(rust_library_alias(symbol))
                or self._by_path(symbol, self._in_tree)
                or self._by_path(symbol, self._python_module)
                or self._by_path(symbol, self._in_tree_package, own=False)
            )
            emitted = self._by_path(symbol, self._emitted_source) if site is None else None
            if site is None and emitted is None:
                site = self._by_path(symbol, self._in_tree, holder=True) or self._by_path(
                    symbol, self._in_tree_package, own=False, holder=True)  # fmt: skip
            mapped = emitted or (self._mapped(site) if site is not None else None)
            self.found[symbol] = (
                (mapped, Confidence.EXACT_DECLARATION_MAPPED) if mapped is not None
                else (site, Confidence.EXACT_TYPECHECKED) if site is not None
                else None
            )  # fmt: skip
        return self.found[symbol]

    def _by_path(self, symbol: str, file_of: Callable[[ScipSymbol, str], str | None], own: bool = True,
                 holder: bool = False) -> Site | None:  # fmt: skip
        """The declaration a symbol names by its file path and qualified name, the file found by
        `file_of(symbol, package-relative path)`; `own`: only a symbol of our own package. `holder`:
        a member we do not model (a type literal's property, `ContractInstance.typeLiteral5.router`)
        is found as the declaration that holds it (through_holder)."""
        parsed = parse_symbol(symbol)
        if parsed is None or (own and (parsed.manager, parsed.package) not in self.own):
            return None
        path = ""
        for at, descriptor in enumerate(parsed.descriptors):
            if descriptor.suffix is not Suffix.NAMESPACE:
                return None
            path = f"{path}/{descriptor.name}" if path else descriptor.name
            file = file_of(parsed, path)
            if file is not None:
                rest = parsed.descriptors[at + 1 :]
                if not rest or [(d.name, d.suffix) for d in rest] == [("__init__", Suffix.META)]:
                    return Site(file, -1)  # the module itself (scip-python: `pkg.mod`/__init__:)
                # scip-typescript names a type literal's scope `typeLiteralN`, which declares nothing
                # (`Contract.typeLiteral0.router` is the property `Contract.router`).
                parts = ["constructor" if d.name == "<constructor>" else d.name for d in rest
                         if not _TYPE_LITERAL.fullmatch(d.name)]  # fmt: skip
                names = self._names(file)
                ends = range(len(parts), 0, -1) if holder else (len(parts),)
                found = next((f for end in ends if (f := names.get(".".join(parts[:end]))) is not None), None)
                if found is not None and names.get(".".join(parts)) is None:
                    self.through_holder.add(symbol)
                if found is None and (holder or _parameter_of(rest, names)):
                    self.unmodeled.add(symbol)
                return Site(file, found) if found is not None else None
        return None

    def _in_tree(self, parsed: ScipSymbol, path: str) -> str | None:
        return path if path in self.files else None

    def _python_module(self, parsed: ScipSymbol, path: str) -> str | None:
        """The file of the module scip-python names `pkg.mod`, found where every Python project's
        run found its imports (languages/python/modules.py `search_bases`): a module of another
        project of the tree, which this project's index uses but does not define."""
        if parsed.manager != "python" or self.layout is None or "/" in path:
            return None
        parts = path.split(".")
        first = parsed.descriptors[1].name if len(parsed.descriptors) > 1 else None
        for base in search_bases(self.layout):
            found = module_files(base, parts, self.layout)
            if found:  # the implementation, unless only its stub declares the name (a generated _pb2.py)
                return next((f for f in found if first is None or first in self._names(f)), found[0])
        return None

    def _in_tree_package(self, parsed: ScipSymbol, path: str) -> str | None:
        """The file of the tree a symbol of another npm package names: `path` within a package of
        the tree of its name and version, or — a file with no package.json above it, which
        scip-typescript names by its absolute path — the longest end of that path that is ours."""
        if parsed.manager != "npm" or self.layout is None:
            return None
        if not parsed.package:
            parts = path.split("/")
            return next((end for i in range(1, len(parts)) if (end := "/".join(parts[i:])) in self.files), None)
        for package in manifests(self.layout).workspace().get(parsed.package, ()):
            file = f"{package.root}/{path}" if package.root else path
            if package.version in (parsed.version, "") and file in self.files:
                return file
        return None

    def _emitted_source(self, parsed: ScipSymbol, path: str) -> str | None:
        """Our package's declaration file as tsc emitted it (`dist/index.d.ts` of the copy installed
        in node_modules) → the source it is compiled from, by the package's tsconfig."""
        if self.layout is None or not path.endswith(STUBS):
            return None
        for root in self._package_roots(parsed.manager, parsed.package):
            emitted = f"{root}/{path}" if root else path
            config = manifests(self.layout).paths_config(emitted)
            sources = [p for p in config.emitted_from(emitted) if p in self.files] if config is not None else []
            if sources:
                return sources[0]
        return None

    def _package_roots(self, manager: str, package: str) -> list[str]:
        """Where the package's files are in the tree: a file's path less its path in the package."""
        key = (manager, package)
        if key not in self.roots:
            roots: set[str] = set()
            for symbol, site in self.definitions.items():
                parsed = parse_symbol(symbol) if site.index < 0 else None
                if parsed is None or (parsed.manager, parsed.package) != key:
                    continue
                inside = "/".join(d.name for d in parsed.descriptors)
                if site.path == inside or site.path.endswith("/" + inside):
                    roots.add(site.path.removesuffix(inside).rstrip("/"))
            self.roots[key] = sorted(roots)
        return self.roots[key]

    def _names(self, path: str) -> dict[str, int]:
        if path not in self.names:
            names: dict[str, int] = {}
            for i, name in enumerate(self.files[path].qualified_names):
                names.setdefault(name, i)  # overloads share a name; the first stands for all
            self.names[path] = names
        return self.names[path]

    def _map(self, path: str) -> DeclarationMap | None:
        if path not in self.maps:
            data = self.read(path + ".map") if path.endswith(".d.ts") else None
            try:
                self.maps[path] = DeclarationMap.parse(data, path + ".map") if data is not None else None
            except SourceMapError:
                self.maps[path] = None  # an unreadable map leaves the declaration file as the target
        return self.maps[path]

    def _mapped(self, site: Site) -> Site | None:
        """The source declaration a `.d.ts` declaration was emitted from, when a map says so."""
        declaration_map = self._map(site.path)
        if declaration_map is None:
            return None
        if site.index < 0:
            origin = next((o for line in declaration_map.lines for _, o in line), None)
            return Site(origin.path, -1) if origin is not None and origin.path in self.files else None
        declaration = self.files[site.path].syntax.declarations[site.index]
        origin = declaration_map.origin(declaration.name_line - 1, declaration.name_column)
        source = self.files.get(origin.path) if origin is not None else None
        if origin is None or source is None:
            return None
        same_line = [
            i
            for i, d in enumerate(source.syntax.declarations)
            if d.name_line == origin.line + 1 and d.name == declaration.name
        ]
        exact = [i for i in same_line if source.syntax.declarations[i].name_column == origin.column]
        chosen = exact or same_line
        return Site(origin.path, chosen[0]) if chosen else None


def _parameter_of(rest: "Sequence[Descriptor]", names: dict[str, int]) -> bool:
    """Whether descriptors name a parameter of a declaration of the file (`f().(x)`: a keyword
    argument's use): ours, but not a declaration we model, as it is when the index defines it."""
    if not rest or rest[-1].suffix not in (Suffix.PARAMETER, Suffix.TYPE_PARAMETER):
        return False
    return ".".join("constructor" if d.name == "<constructor>" else d.name for d in rest[:-1]) in names


def rebase(index: ScipIndex, root: str) -> ScipIndex:
    """The same index with document paths made relative to the repository root."""
    prefix = root.rstrip("/") + "/"
    documents = tuple(replace(d, path=prefix + d.path) for d in index.documents)
    return replace(index, documents=documents)


STUBS = (".pyi", ".d.ts", ".d.mts", ".d.cts")


def _is_stub(path: str) -> bool:
    return path.endswith(STUBS)


def _relation_kind(files: dict[str, FileScopes], site: Site, other: Site) -> EdgeKind:
    """Implementing an interface (or its method) is IMPLEMENTS; redefining a class's method, OVERRIDES."""
    if _implemented(files, other):
        return EdgeKind.IMPLEMENTS
    source_kind = files[site.path].syntax.declarations[site.index].kind if site.index >= 0 else SymbolKind.MODULE
    return EdgeKind.OVERRIDES if source_kind in CALLABLE_KINDS else EdgeKind.EXTENDS


def _implemented(files: dict[str, FileScopes], other: Site) -> bool:
    """Whether what implements `other` implements it (an interface, a member of one, a module)
    rather than overriding or extending it."""
    target_file = files[other.path]
    if other.index < 0:
        return True
    if target_file.syntax.declarations[other.index].kind in INTERFACE_KINDS:
        return True
    parent = target_file.parents[other.index]
    return parent >= 0 and target_file.syntax.declarations[parent].kind in INTERFACE_KINDS


def replace_covered(syntax: Facts, ingested: Ingested, declared: Callable[[str], tuple[str, str] | None],
                    late: LateGo | None = None) -> Facts:  # fmt: skip
    """The fallback's facts for files an index does not cover, the index's facts for those it does.

    Structure (METHOD_OF) and syntax problems stay whatever the source: a type checker does not
    restate them. A blind spot of the fallback (a receiver of unknown type, an ambiguous name)
    stays unless the type checker resolved a use of that name on that line: where both failed,
    the answer must still say so. So does the fallback's edge to another file for a use the type
    checker left unresolved — an import it could not follow, such as another project root of a
    Python monorepo not installed where it ran — as the candidate it is: dropping it answered "no
    callers". `declared`: a declaration's file and name by its key (the name "" for a module).
    `late` (a shard's Go index, with the uses it holds): an edge kept only because no exact edge
    joins its two ends, from a declaration with a held use, waits for the merge (LateGo.awaiting).
    """
    exact, covered = ingested.facts, ingested.covered
    exact_pairs = {(e.source, e.target) for e in exact.edges}
    # A line where the fallback itself lost the thread (its edge there only says where the path
    # stopped) gives nothing to keep; held records count, so a part of the tree decides alike.
    blind = {(u.file, u.line) for u in syntax.unresolved} | {
        (row.file, row.line) for row, _ in syntax.held if isinstance(row, Unresolved)
    }

    def unsettled(e: Edge) -> bool:
        """A use of another file the type checker neither resolved nor connected the same way."""
        where = declared(e.target)
        if e.provenance is not Provenance.TREE_SITTER or where is None or where[0] == e.file:
            return False
        name = where[1]
        return ((e.file, e.line) not in blind and (e.source, e.target) not in exact_pairs
                and (not name or (e.file, e.line, name) not in ingested.resolved))  # fmt: skip

    def kept_regardless(e: Edge) -> bool:
        return (
            e.file not in covered
            or e.kind is EdgeKind.METHOD_OF
            # scip-go names an imported package by a symbol no declaration carries: the syntax layer's
            # edges to the package's files stay.
            or (e.kind is EdgeKind.IMPORTS_SYMBOL and e.file.endswith(".go"))
        )

    def kept_unless_joined(e: Edge) -> bool:
        """Kept only as long as no exact edge joins the same two declarations."""
        return (
            unsettled(e)
            # Some indexers state no relationships (rust-analyzer): the syntax layer's heritage edges
            # stay, as candidates, unless the type checker connected the same pair.
            or (e.kind in HERITAGE_EDGES and (e.source, e.target) not in exact_pairs)
            or (
                (e.file, e.line, e.source) in ingested.shorthands
                and e.kind in (EdgeKind.ASSIGNS_FUNCTION, EdgeKind.REFERENCES)
                and (e.source, e.target) not in exact_pairs
            )
        )

    def edge_kept(e: Edge) -> bool:
        return kept_regardless(e) or kept_unless_joined(e)

    def unresolved_kept(u: Unresolved) -> bool:
        return u.file not in covered or (u.file, u.line, last_name(u.requested_symbol)) not in ingested.resolved

    kept = [e for e in syntax.edges if edge_kept(e)]
    if late is not None and late.uses:
        sources = late.sources()
        waiting = {e for e in kept if e.source in sources and not kept_regardless(e)}
        late.awaiting += [e for e in kept if e in waiting]
        kept = [e for e in kept if e not in waiting]
    kept_edges = _confirm_trait_members(kept, exact.edges, syntax.edges)
    kept_external = [x for x in syntax.external_references if x.file not in covered]
    # The exact layer's own blind spots (a use it could not settle) stay beside the fallback's.
    unresolved = [u for u in syntax.unresolved if unresolved_kept(u)] + exact.unresolved
    held = [(row, name) for row, name in syntax.held
            if (edge_kept(row) if isinstance(row, Edge) else unresolved_kept(row))]  # fmt: skip
    return Facts(kept_edges + exact.edges, kept_external + exact.external_references, unresolved, held)


def _confirm_trait_members(kept: list[Edge], exact: list[Edge], syntax: list[Edge]) -> list[Edge]:
    """A method of `impl Trait for Type` implements the trait's method of its name; the syntax
    layer says so as a candidate (rust-analyzer states no relationships). Where the index resolved
    that impl's trait to the same trait, the member-level edge is certain: the compiler holds an
    impl's methods to the trait's names."""
    owner = {e.source: e.target for e in syntax if e.kind is EdgeKind.METHOD_OF}
    traits = {(e.file, e.target): e.provenance for e in exact if e.kind is EdgeKind.IMPLEMENTS}
    confirmed: list[Edge] = []
    for e in kept:
        trait = owner.get(e.target) if e.kind is EdgeKind.IMPLEMENTS and e.confidence is Confidence.CANDIDATE else None
        provenance = traits.get((e.file, trait)) if trait is not None else None
        if provenance is not None:
            e = replace(e, confidence=Confidence.STRUCTURAL_CERTAIN, provenance=provenance)
        confirmed.append(e)
    return confirmed


def _class_bases(index: ScipIndex) -> dict[str, tuple[str, ...]]:
    """Class symbol → the classes it extends, as the index relates them."""
    return {
        info.symbol: tuple(r.symbol for r in info.relationships if r.is_implementation and r.symbol.endswith("#"))
        for document in index.documents
        for info in document.symbols
        if info.symbol.endswith("#") and info.relationships
    }


def _python_gaps(index: ScipIndex, document: Document, files: dict[str, FileScopes],
                 read: Callable[[str], bytes | None], text: SourceText,
                 key_of: Callable[[str], str | None], bases: dict[str, tuple[str, ...]],
                 edge: Callable[[str, str, EdgeKind, str, int, Confidence], None]) -> PythonGaps:  # fmt: skip
    """What scip-python leaves out of one document (see `languages/python/gaps.py`)."""

    def occurrences() -> dict[int, str]:
        return {
            text.byte(o.span.start_line, o.span.start_character, index.encoding): o.symbol
            for o in document.occurrences
            if not o.roles & DEFINITION and not is_local(o.symbol)
        }

    def emit(source: str, target: str, kind: EdgeKind, line: int, confidence: Confidence) -> None:
        edge(source, target, kind, document.path, line, confidence)

    scopes = files[document.path]
    return PythonGaps(scopes, text.source, occurrences, key_of, lambda s: bases.get(s, ()), emit, files, read)
