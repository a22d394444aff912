"""The generation's value types: files, packages, symbols, edges, external and unresolved records.

Pure data (frozen, slotted, tuples inside); no I/O and no encoding here. Lines are 1-based and
inclusive; columns are 0-based UTF-8 byte offsets.
"""

from dataclasses import dataclass, field

from kivgraph.model.enums import (
    Confidence,
    EdgeKind,
    FileRole,
    FileStatus,
    Language,
    Provenance,
    SymbolKind,
)


@dataclass(frozen=True, slots=True)
class FileRecord:
    path: str
    language: Language
    digest: str
    """The git blob id of the content that was indexed."""
    size: int
    status: FileStatus = FileStatus.INDEXED
    role: FileRole = FileRole.SOURCE


@dataclass(frozen=True, slots=True)
class Package:
    """One unit of identity a language's tooling publishes: a Go package, an npm package, a crate."""

    id: str
    """Unique in the generation: `<language>:<name>`."""
    language: Language
    name: str
    """Go: `<module> <import path>`; npm name; crate name; Python import package; pubspec name."""
    root: str
    """Repository-relative directory the package covers ("" for the repository root)."""
    manifest: str = ""
    """Repository-relative manifest path (go.mod, package.json, Cargo.toml, …), if any."""
    version: str = ""
    distribution: str = ""
    """Python: the distribution the import package ships in (`[project] name` of pyproject.toml,
    `[metadata] name` of setup.cfg) — what installers and scip-python call it; "" elsewhere."""


@dataclass(frozen=True, slots=True)
class Symbol:
    key: str
    name: str
    qualified_name: str
    kind: SymbolKind
    language: Language
    file: str
    start_line: int
    end_line: int
    name_line: int
    name_column: int
    signature: str = ""
    exported: bool = False
    container: str | None = None
    """Stable key of the enclosing declaration (a method's class, an impl's type), if any."""
    package: str = ""
    """Id of the Package this symbol belongs to ("" when none could be identified)."""
    doc: str = ""
    """First paragraph of the doc comment or docstring, trimmed."""
    role: FileRole = FileRole.SOURCE
    """Its file's role, or `test` inside a test region of a source file (Rust `#[cfg(test)]`)."""


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    kind: EdgeKind
    confidence: Confidence
    provenance: Provenance
    file: str
    line: int
    """Where the use happens (the site), 0 when the edge has no single site."""


@dataclass(frozen=True, slots=True)
class ExternalReference:
    """A use of a symbol from a package this repository does not provide."""

    source: str
    language: Language
    package: str
    """The requested package as the language names it (import path, npm name, crate)."""
    symbol: str
    """The symbol path inside that package, as written or as the analyzer resolved it."""
    file: str
    line: int
    manager: str = ""
    version: str = ""
    provenance: Provenance = Provenance.TREE_SITTER
    kind: EdgeKind = EdgeKind.REFERENCES
    """The relation the analyzer saw at the site (a call, a type use, an import): the edge it
    becomes when a repository of the workspace turns out to provide the symbol."""


@dataclass(frozen=True, slots=True)
class Unresolved:
    """A reference that was seen and not followed, with why."""

    reason: str
    language: Language
    file: str
    line: int
    requested_package: str = ""
    requested_symbol: str = ""
    source: str | None = None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class InvisibleScope:
    """A package, module or directory that could not be analysed at all."""

    reason: str
    language: Language
    scope: str
    """The package or module name as the language knows it."""
    path: str
    """Repository-relative directory (or file) to look at instead."""
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Submodule:
    """A git submodule of the indexed tree: recorded, not indexed (its code is another repository's)."""

    path: str
    commit: str
    url: str = ""


DERIVED_PREFIX = "rust:"
"""The name of a derived repository (the toolchain's Rust standard library, `rust:<release>`)
begins so: a name no git repository can have, which queries withhold unless asked."""


def is_derived(repository: str) -> bool:
    return repository.startswith(DERIVED_PREFIX)


@dataclass(frozen=True, slots=True)
class GenerationHeader:
    repository: str
    commit: str
    tree: str
    indexer_version: str
    created_at: str
    """ISO-8601 UTC; the only clock value in stored data."""
    remote_url: str = ""
    languages: tuple[Language, ...] = ()
    analyzers: tuple[tuple[str, str], ...] = ()
    """(analyzer, version) pairs, sorted."""
    worktree: bool = False
    """True when indexed from a working tree rather than a commit's tree."""
    submodules: tuple[Submodule, ...] = ()
    """Submodules of the tree, sorted by path (storage format 1.2; none in older blobs)."""


@dataclass(frozen=True, slots=True)
class Generation:
    header: GenerationHeader
    files: tuple[FileRecord, ...] = ()
    packages: tuple[Package, ...] = ()
    symbols: tuple[Symbol, ...] = ()
    edges: tuple[Edge, ...] = ()
    external_references: tuple[ExternalReference, ...] = ()
    unresolved: tuple[Unresolved, ...] = ()
    invisible_scopes: tuple[InvisibleScope, ...] = field(default=())


def last_name(symbol: str) -> str:
    """The name a requested symbol ends with: `pkg.Type.method`, `crate::m::f`, `mod/f` → the last
    name. Unresolved records are matched to a use, or to a query, by it."""
    for separator in ("::", ".", "/"):
        symbol = symbol.rpartition(separator)[2]
    return symbol
