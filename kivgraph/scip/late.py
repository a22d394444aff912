"""Go uses a shard leaves to the merge: its modules' uses of a module of the tree another shard
type-checks (a sibling their go.mod replaces), held with its modules' declarations, and bound there.

Go's index of a use names the module it is in; a use binds to the declaration some module's index
defines under that name (kivgraph/scip/run.py merge_go). A shard that did not run the sibling's
indexer cannot tell what the use names: it holds it (LateUse), with its own modules' definitions
that other modules may use (LateRun), and the merge names and binds both as one run would (bind).
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kivgraph.model import FUNCTION_VALUE_KINDS, Confidence, Edge, EdgeKind, ExternalReference, Language, Provenance
from kivgraph.scip.go_names import go_versions, member, versioned
from kivgraph.scip.symbols import parse_symbol

if TYPE_CHECKING:
    from kivgraph.scip.run import AnalyzerRun

GO_SYMBOL = "scip-go gomod "


class LateMismatch(ValueError):
    """The shards' late uses and definitions do not fit together; the message says where."""


@dataclass(frozen=True, slots=True)
class LateUse:
    """A use in a shard's module of a symbol of a module its go command loaded from the tree, which
    no index of the shard defines."""

    source: str
    """The key of the declaration the use is in (or, for a relation, the one stated to implement)."""
    symbol: str
    """As the shard's Go index names it (merge_go over the shard's modules)."""
    root: str
    """The module whose index states it."""
    kind: EdgeKind
    file: str
    line: int
    relation: bool = False
    """An implementation relationship of `source` (it implements or overrides `symbol`), not a use."""
    source_callable: bool = False
    """For a relation: whether `source` is callable (it overrides, else it extends)."""


@dataclass(frozen=True, slots=True)
class LateDefinition:
    symbol: str
    """As the shard's Go index names it."""
    key: str | None
    """Its declaration's key; None for a symbol defined that is no declaration we model (a use of it
    is no edge and no external reference)."""
    callable: bool
    """A use of it as a function value is one (else a reference)."""
    implemented: bool
    """Implementing it is IMPLEMENTS (an interface, a method of one), else OVERRIDES or EXTENDS."""


@dataclass(frozen=True, slots=True)
class LateRun:
    """One of a shard's modules its indexer ran on."""

    root: str
    local_modules: tuple[tuple[str, str], ...]
    """As its AnalyzerRun says: (module path, directory) of each module loaded from the tree."""
    definitions: tuple[LateDefinition, ...] | None
    """What its index defines, when another module of the tree loads it (else None: no use of it
    can be late)."""


@dataclass(slots=True)
class LateGo:
    """What a shard leaves to the merge. `exported`: the roots of its modules another module loads
    from the tree, given by the caller; the rest is filled while the shard is indexed."""

    exported: frozenset[str] = frozenset()
    runs: list[LateRun] = field(default_factory=list[LateRun])
    uses: list[LateUse] = field(default_factory=list[LateUse])
    awaiting: list[Edge] = field(default_factory=list[Edge])
    """Edges of the syntax layer kept only because no exact edge joins their two ends, from a
    declaration with late uses: kept at the merge unless a late use joins the same two."""

    def sources(self) -> frozenset[str]:
        return frozenset(use.source for use in self.uses)


class LateSites:
    """Which uses of a shard's Go index are late (see LateUse), and where they are recorded."""

    def __init__(self, runs: Sequence["AnalyzerRun"], late: LateGo) -> None:
        go = [r for r in runs if r.project.spec.name == "scip-go" and r.index is not None]
        self.late = late
        self.roots = sorted((r.project.root for r in go), key=len, reverse=True)
        self.local = {r.project.root: dict(r.local_modules) for r in go}
        self.modules = {r.project.root: r.local_modules for r in go}
        self.definitions: dict[str, list[LateDefinition]] = {}

    def root_of(self, path: str) -> str | None:
        return next((r for r in self.roots if r == "" or path.startswith(r + "/")), None)

    def held(self, path: str, symbol: str) -> str | None:
        """The module (root) whose index holds the use at `path` of `symbol`, when the use is late:
        `symbol` is of a module that module loaded from the tree."""
        if not symbol.startswith(GO_SYMBOL):
            return None
        root = self.root_of(path)
        fields = symbol.split(" ", 4)
        return root if root is not None and len(fields) == 5 and fields[2] in self.local[root] else None

    def exports(self, root: str) -> bool:
        return root in self.late.exported

    def use(self, use: LateUse) -> None:
        self.late.uses.append(use)

    def define(self, root: str, definition: LateDefinition) -> None:
        self.definitions.setdefault(root, []).append(definition)

    def finish(self) -> None:
        """Record the runs, with the definitions of those other modules load."""
        for root, modules in sorted(self.modules.items()):
            given = tuple(self.definitions.get(root, ())) if self.exports(root) else None
            self.late.runs.append(LateRun(root, modules, given))


@dataclass(slots=True)
class Bound:
    """A part's late uses as one run resolves them: edges and external references to add."""

    edges: list[Edge] = field(default_factory=list[Edge])
    external_references: list[ExternalReference] = field(default_factory=list[ExternalReference])


def bind(parts: Sequence[LateGo | None]) -> list[Bound]:
    """Each part's late uses named as the Go indexes of every part merged into one name them, and
    bound to the declarations they define; the edges awaiting them kept unless one joins the same
    two. Raises LateMismatch when a use is of a module a part ran without giving its definitions."""
    runs = [run for late in parts if late is not None for run in late.runs]
    roots = [run.root for run in runs]
    if len(set(roots)) != len(roots):
        raise LateMismatch("a Go module is indexed by two shards")
    tables = dict(zip(roots, go_versions([(run.root, run.local_modules) for run in runs]), strict=True))
    definitions: dict[str, LateDefinition] = {}
    for run in runs:
        for definition in run.definitions or ():
            definitions.setdefault(versioned(definition.symbol, tables[run.root]), definition)
    defined = set(definitions)
    silent = {run.root for run in runs if run.definitions is None}
    local = {run.root: dict(run.local_modules) for run in runs}
    bound: list[Bound] = []
    for late in parts:
        found = Bound()
        bound.append(found)
        if late is None:
            continue
        own = {run.root for run in late.runs}
        for use in late.uses:
            if use.root not in tables:
                raise LateMismatch(f"a use in {use.file} is of a module no shard indexed ({use.root or '.'})")
            name = member(versioned(use.symbol, tables[use.root]), defined)
            definition = definitions.get(name)
            if definition is None:
                directory = local[use.root].get(name.split(" ", 4)[2]) if name.startswith(GO_SYMBOL) else None
                if directory in silent and directory not in own:  # (its own modules' it had)
                    raise LateMismatch(f"{use.file} uses the module at {directory or '.'}, whose shard did not "
                                       "give its declarations")  # fmt: skip
                if not use.relation:
                    found.external_references += _external(use, name)
                continue
            if definition.key is None:
                continue
            found.edges.append(Edge(use.source, definition.key, _kind(use, definition), Confidence.EXACT_TYPECHECKED,
                                    Provenance.SCIP_GO, use.file, use.line))  # fmt: skip
        pairs = {(e.source, e.target) for e in found.edges}
        found.edges += [e for e in late.awaiting if (e.source, e.target) not in pairs]
    return bound


def _kind(use: LateUse, definition: LateDefinition) -> EdgeKind:
    """The edge kind ingestion gives a use (or relation) found bound to `definition`."""
    if use.relation:
        if definition.implemented:
            return EdgeKind.IMPLEMENTS
        return EdgeKind.OVERRIDES if use.source_callable else EdgeKind.EXTENDS
    if use.kind in FUNCTION_VALUE_KINDS and not definition.callable:
        return EdgeKind.REFERENCES
    return use.kind


def _external(use: LateUse, name: str) -> list[ExternalReference]:
    parsed = parse_symbol(name)
    if parsed is None or not parsed.descriptors:
        return []
    symbol_path = ".".join(d.name for d in parsed.descriptors)
    return [ExternalReference(use.source, Language.GO, parsed.package, symbol_path, use.file, use.line, parsed.manager,
                              parsed.version, Provenance.SCIP_GO, use.kind)]  # fmt: skip
