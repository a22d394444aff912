"""One generation composed of parts — each some of the plan's units indexed by itself
(kivgraph/units.py) — by which unit owns each file: what a merge of shards and reuse across
commits both end with.

Apart from indexing, so that a merge of shards loads no parser or type checker's machinery.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kivgraph.languages.scopes import is_file_module
from kivgraph.model import Edge, GenerationHeader, InvisibleScope, Language, SymbolKind, Unresolved
from kivgraph.plan import SYNTAX, Plan, Unit
from kivgraph.scip.late import LateGo, LateMismatch, bind
from kivgraph.scip.projects import unconfigured
from kivgraph.snapshot import Snapshot, present, readable
from kivgraph.store import codec
from kivgraph.store.codec import NONE, Columns, int_list
from kivgraph.store.join import JoinError, Piece, join


def inside(path: str, root: str) -> bool:
    return root == "" or path == root or path.startswith(root + "/")


def owner_of_scope(plan: Plan, scope: InvisibleScope) -> Unit | None:
    """The analyzed unit a type checker's blind spot is in: the deepest whose root holds its path."""
    holders = [u for u in plan.units if u.analyzer != SYNTAX and scope.language in u.languages
               and inside(scope.path, u.root)]  # fmt: skip
    return max(holders, key=lambda u: len(u.root)) if holders else None


class PartsDisagree(Exception):
    """The parts do not make up the tree: a file none of them stands for."""


@dataclass(frozen=True, slots=True)
class Given:
    """What a part gives a composition: its rows (columns, as stored), the units whose files'
    rows are taken from it, and its rows held for a name."""

    columns: Columns
    units: frozenset[str]
    held: Sequence[tuple[Edge | Unresolved, str]] = ()
    late: LateGo | None = None


def compose(snap: Snapshot, plan: Plan, parts: Sequence[Given], header: GenerationHeader,
            languages: frozenset[Language] | None, run_analyzers: bool) -> Columns:  # fmt: skip
    """The columns of one generation of the tree from its parts: each file's rows from the part
    of the unit that owns it (a file no unit owns, and rows of no file, from the last part); the
    tree's own blind spots anew. Rows held for a name are decided here, now that every declaration
    is known. Joined column by column (kivgraph/store/join.py): no row object per edge."""
    owner = plan.owners()
    taken = {unit: i for i, part in enumerate(parts) for unit in part.units}
    last = len(parts) - 1

    def source(path: str) -> int:
        unit = owner.get(path)
        return last if unit is None else taken.get(unit.id, -1)

    files = [frozenset(p for p in part.columns.file_paths() if source(p) == i) for i, part in enumerate(parts)]
    given_paths = {p for paths in files for p in paths}
    in_tree = {f.path for f in snap.files}
    if not given_paths <= in_tree:
        raise PartsDisagree("the files of the parts do not make up the tree")
    missing = next((path for path in sorted(owner) if path not in given_paths), None)
    if missing is not None:  # a part that says it stands for a unit gives every file of it
        raise PartsDisagree(f"none of them gives {missing}, a file of {owner[missing].id}")

    scopes: list[InvisibleScope] = []
    for i, part in enumerate(parts):
        for scope in codec.invisible_scopes_of(part.columns):
            if scope.reason == "PATH_NOT_UTF8" or scope.reason == "PROJECT_NOT_CONFIGURED" and scope.path == "":
                continue
            unit = owner_of_scope(plan, scope)
            if unit is not None and taken.get(unit.id) == i:
                scopes.append(scope)
    scopes += [s for s in codec.invisible_scopes_of(parts[last].columns) if s.reason == "PATH_NOT_UTF8"]
    if run_analyzers:
        scopes += unconfigured([f.path for f in readable(snap)], present(snap, languages))

    admitted = _admitted(parts, files)
    try:
        bound = bind([part.late for part in parts])
    except LateMismatch as err:
        raise PartsDisagree(str(err)) from err
    pieces = [Piece(part.columns, files[i], i == last,
                    [*bound[i].edges, *(r for r in admitted[i] if isinstance(r, Edge))],
                    [r for r in admitted[i] if isinstance(r, Unresolved)], bound[i].external_references)
              for i, part in enumerate(parts)]  # fmt: skip
    try:
        return join(header, pieces, scopes)
    except JoinError as err:
        raise PartsDisagree(str(err)) from err


def _admitted(parts: Sequence[Given], files: Sequence[frozenset[str]]) -> list[list[Edge | Unresolved]]:
    """Each part's rows held for a name that some declaration of the tree has, of the files it gives."""
    if not any(part.held for part in parts):
        return [[] for _ in parts]
    names = {name for i, part in enumerate(parts) for name in _declared(part.columns, files[i], i == len(parts) - 1)}
    last = len(parts) - 1
    return [[row for row, name in part.held if name in names and (row.file in files[i] or not row.file and i == last)]
            for i, part in enumerate(parts)]  # fmt: skip


def _declared(columns: Columns, files: frozenset[str], fileless: bool) -> set[str]:
    """The names the symbols of `files` (and those of no file, when `fileless`) declare, but a
    file's own module (named after the file, not declared), read off the columns."""
    symbols, strings = columns.tables["symbols"], columns.strings
    given = np.array([p in files for p in columns.file_paths()] + [fileless], dtype=bool)  # NONE (-1): last
    rows = np.flatnonzero(given[symbols["file"]])
    kinds = columns.vocabularies["symbol_kind"]
    module = kinds.index(SymbolKind.MODULE.value) if SymbolKind.MODULE.value in kinds else NONE
    at_start = (symbols["name_line"][rows] == 1) & (symbols["name_column"][rows] == 0)
    maybe_file = (symbols["kind"][rows] == module) & at_start
    names = {strings[x] for x in int_list(symbols["name"][rows[~maybe_file]])}
    return names | {s.name for s in codec.symbols_of(columns, rows[maybe_file]) if not is_file_module(s)}
