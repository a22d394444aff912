"""Part of a tree indexed by itself: some of the plan's units (kivgraph/plan.py) with the units they
depend on, and one generation composed of such parts by which unit owns each file.

Reuse across commits (kivgraph/reuse.py: an ancestor's rows and the changed units') and sharded
indexing (kivgraph/shard.py: each shard's units) are both made of these two steps.
"""

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from kivgraph.indexing import (
    MAX_FILE_BYTES,
    Progress,
    Snapshot,
    TreeFile,
    index_snapshot,
    is_file_module,
    tree_go_homonyms,
    utf8_path,
)
from kivgraph.languages import language_of
from kivgraph.languages.resolve import Held
from kivgraph.model import Edge, Generation, GenerationHeader, InvisibleScope, Language, SymbolKind, Unresolved
from kivgraph.plan import SYNTAX, Plan, Unit, go_replaced, reaches_by_path
from kivgraph.scip.late import LateGo, LateMismatch, bind
from kivgraph.scip.run import Analysis, AnalyzerRun, unconfigured
from kivgraph.store import codec
from kivgraph.store.codec import NONE, Columns, int_list
from kivgraph.store.join import JoinError, Piece, join

_GO_IMPORT = re.compile(rb'^\s*import\s+(?:[\w.]+\s+)?"([^"]+)"', re.MULTILINE)
_GO_IMPORT_BLOCK = re.compile(rb"^\s*import\s*\((.*?)\)", re.MULTILINE | re.DOTALL)
_GO_BLOCK_PATH = re.compile(rb'^\s*(?:[\w.]+\s+)?"([^"]+)"', re.MULTILINE)
_GO_DECLARATION = re.compile(rb"^(?:func|type|var|const)\b", re.MULTILINE)


def go_imports(data: bytes) -> list[str]:
    """The import paths a Go file names: read up to its first declaration, which its imports
    precede (unless a block comment may hide where that is)."""
    first = _GO_DECLARATION.search(data)
    if first is not None and b"/*" not in data[: first.start()]:
        data = data[: first.start()]
    paths = [m.group(1) for m in _GO_IMPORT.finditer(data)]
    paths += [p for block in _GO_IMPORT_BLOCK.finditer(data) for p in _GO_BLOCK_PATH.findall(block.group(1))]
    return [p.decode("utf-8", "replace") for p in paths]


def inside(path: str, root: str) -> bool:
    return root == "" or path == root or path.startswith(root + "/")


class Dependencies:
    """Which units a unit's uses may reach: what its manifests declare, every Go module under a
    go.work, any unit whose files a script or syntax-only unit could import by path (the same
    languages), the units whose name its files spell, and what an earlier generation's edges show
    it used. Without an earlier generation, only Go's reach is known for certain (a package is
    imported by its module's path): a unit of another language reaches every unit of its languages.

    A Go module reaches the modules its files import, and the siblings its go.mod replaces by a
    path — not all its go.mod requires: since Go 1.17 go.mod lists every indirect module too, and
    a Go file uses only what its package's imports, direct and transitive (a method of a type it
    never imports comes from a package an import imports), can name. A replaced sibling is loaded
    from the tree for any package of the build that imports it, one of the module cache's too,
    which the tree does not show (scip-go's tests reach testify only through a dependency). The
    required modules' manifests are still given to the go command (`manifests`)."""

    def __init__(self, plan: Plan, snap: Snapshot, earlier: Columns | None = None) -> None:
        self.plan, self.snap = plan, snap
        self.by_id = {u.id: u for u in plan.units}
        self.languages = {u.id: u.languages for u in plan.units}
        self.files = {f.path: f for f in snap.files}
        self.used = None if earlier is None else _used(plan, earlier)
        self.workspace = any(p.rpartition("/")[2] == "go.work" for p in self.files)
        self.mentions: dict[str, set[str]] = {}
        self._of: dict[str, set[str]] = {}

    def of(self, unit: Unit) -> set[str]:
        if unit.id in self._of:
            return self._of[unit.id]
        used: set[str] = self.used.get(unit.id, set()) if self.used is not None else set()
        declared = self._replaced(unit) if unit.analyzer == "scip-go" else set(unit.depends_on)
        found = declared | used | self._spelled(unit)
        for other in self.plan.units:
            if other is unit:
                continue
            workspace = self.workspace and unit.analyzer == other.analyzer == "scip-go"
            by_path = reaches_by_path(unit, self.languages[unit.id], self.languages[other.id], self.used is not None)
            if workspace or by_path:
                found.add(other.id)
        self._of[unit.id] = found
        return found

    def closure(self, units: Iterable[str]) -> set[str]:
        seen = set(units)
        stack = list(seen)
        while stack:
            for dep in self.of(self.by_id[stack.pop()]):
                if dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        return seen

    def loaded_by_go(self, unit: Unit) -> set[str]:
        """The Go modules the type checker of `unit` may name as the tree's, which must run too for
        those uses to bind: the siblings its go command loads from the tree — those its go.mod
        replaces by a path, or, under a go.work, those it reaches. A module it merely requires is
        read from the module cache as published, whatever the tree holds, and its uses of it are
        external references (the modules of charmbracelet/x require each other so)."""
        if unit.analyzer != "scip-go":
            return set()
        if self.workspace:
            return {i for i in self.closure({unit.id}) - {unit.id} if self.by_id[i].analyzer == "scip-go"}
        return self._replaced(unit)

    def _replaced(self, unit: Unit) -> set[str]:
        go_mod = self._bytes(f"{unit.root}/go.mod" if unit.root else "go.mod") or b""
        return go_replaced(unit, self.plan.units, go_mod.decode("utf-8", "replace"))

    def manifests(self, units: Iterable[str]) -> set[str]:
        """The units whose manifests the analyzers of `units` read: those their manifests declare,
        transitively (the go command loads the go.mod of every module it requires)."""
        seen = set(units)
        stack = list(seen)
        while stack:
            for dep in self.by_id[stack.pop()].depends_on:
                if dep in self.by_id and dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        return seen

    def dependents(self, unit: Unit) -> set[str]:
        return {u.id for u in self.plan.units if u is not unit and unit.id in self.of(u)}

    def naming(self, names: set[str], skipped: set[str]) -> dict[str, str]:
        """The units (but `skipped`) whose files spell one of `names` as a word, with the first found."""
        if not names:
            return {}
        words = b"|".join(re.escape(n.encode()) for n in sorted(names, key=len, reverse=True))
        pattern = re.compile(rb"(?<![\w$])(" + words + rb")(?![\w$])")
        found: dict[str, str] = {}
        for unit in self.plan.units:
            if unit.id in skipped:
                continue
            for path in unit.files:
                data = self._bytes(path)
                hit = pattern.search(data) if data is not None else None
                if hit is not None:
                    found[unit.id] = f"a name it spells is declared or gone: {hit.group(1).decode()}"
                    break
        return found

    def _bytes(self, path: str) -> bytes | None:
        tree_file = self.files.get(path)
        if tree_file is None or tree_file.symlink or tree_file.size > MAX_FILE_BYTES:
            return None
        return tree_file.read()

    def _spelled(self, unit: Unit) -> set[str]:
        """The analyzed units whose name (a Go module path, an npm or crate name) its files contain."""
        if unit.id not in self.mentions:
            named: dict[str, set[str]] = {}  # two modules of one path (twins) are both reached
            for other in self.plan.units:
                if other.analyzer != SYNTAX and other is not unit and other.name != (other.root or "."):
                    named.setdefault(other.name, set()).add(other.id)
            found: set[str] = set()
            for path in unit.files if named else ():
                data = self._bytes(path)
                if data is None:
                    continue
                if path.endswith(".go"):  # Go reaches a module by import path, whatever go.mod requires
                    for imported in go_imports(data):
                        for prefix in _path_prefixes(imported):
                            found.update(named.get(prefix, ()))
                else:
                    for name, ids in named.items():
                        if not ids <= found and name.encode() in data:
                            found |= ids
            self.mentions[unit.id] = found
        return self.mentions[unit.id]


def _path_prefixes(path: str) -> Iterator[str]:
    """`a/b/c`, `a/b`, `a`: the module paths an import path may be in."""
    while path:
        yield path
        path = path.rpartition("/")[0]


def _used(plan: Plan, earlier: Columns) -> dict[str, set[str]]:
    """Which units each unit's edges reach in an earlier generation (the file of an edge's site →
    the file of its target), counted on the columns."""
    owner = plan.owners()
    units = sorted({u.id for u in plan.units})
    number = {unit: n for n, unit in enumerate(units)}
    of_file = np.array([number[u.id] if (u := owner.get(p)) is not None else -1 for p in earlier.file_paths()]
                       + [-1], dtype=np.int64)  # fmt: skip
    edges = earlier.tables["edges"]
    source = of_file[edges["file"]]
    target = of_file[earlier.tables["symbols"]["file"]][edges["target"]]
    crossing = (source >= 0) & (target >= 0) & (source != target)
    used: dict[str, set[str]] = {}
    for a, b in set(zip(int_list(source[crossing]), int_list(target[crossing]), strict=True)):
        used.setdefault(units[a], set()).add(units[b])
    return used


@dataclass(frozen=True, slots=True)
class Part:
    """Some units indexed with what they depend on: rows for every file it parsed, of which those
    of `units` are the ones to take."""

    generation: Generation
    units: frozenset[str]
    runs: tuple[AnalyzerRun, ...]
    """Each type checker's run, one per unit it checked (Go's before they were merged)."""
    held: Held
    """Rows waiting on a name no declaration in sight has (see Held); empty unless asked for."""
    late: LateGo | None = None
    """Go uses of sibling modules left to the composition (see kivgraph/scip/late.py), when asked for."""


def index_units(snap: Snapshot, plan: Plan, units: Iterable[str], depends: Dependencies,
                languages: frozenset[Language] | None, progress: Progress | None, jobs: int | None,
                run_analyzers: bool, names_elsewhere: frozenset[str] | None,
                late_go: bool = False) -> Part:  # fmt: skip
    """Index `units` with the units they depend on (for their declarations); the type checkers run
    on `units`, and on the Go modules among the rest that the go command loads from the tree for
    them (Go's index of a module names what it uses by the index of the module declaring it) —
    unless `late_go`: then those uses are left to the composition, which binds them with the
    declarations of the part that ran the module's indexer (Part.late), as a shard's are.

    `names_elsewhere`: the names declared in the files of the units left out, when known; when
    None, the rows waiting on a name are kept in the part (Part.held) for the caller to decide."""
    chosen = set(units)
    closure = depends.closure(chosen)
    owner = plan.owners()
    roots = sorted((u.root for u in plan.units if u.analyzer != SYNTAX and u.root), key=len, reverse=True)
    kept_roots = {depends.by_id[i].root for i in depends.manifests(closure)}  # their files but sources

    def wanted(path: str, symlink: bool) -> bool:
        if symlink or not utf8_path(path):
            return True  # recorded, never read
        unit = owner.get(path)
        if unit is not None:
            return unit.id in closure
        if language_of(path) is not None and (languages is None or language_of(path) in languages):
            return False
        holder = next((r for r in roots if path.startswith(r + "/")), None)
        return holder is None or holder in kept_roots

    part = replace(snap, files=[f for f in snap.files if wanted(f.path, f.symlink)])
    analysis: Analysis | None = None
    late: LateGo | None = None
    if run_analyzers and late_go:
        loaded_anywhere = {i for unit in plan.units for i in depends.loaded_by_go(unit)}
        late = LateGo(exported=frozenset(depends.by_id[i].root for i in chosen & loaded_anywhere))
    if run_analyzers:
        loaded: set[str] = (
            set() if late is not None else {i for unit in chosen for i in depends.loaded_by_go(depends.by_id[unit])}
        )
        checked = frozenset(i for i in closure if depends.by_id[i].analyzer != SYNTAX and (i in chosen or i in loaded))
        tree = [(f.path, f.read) for f in readable(part)]
        analysis = Analysis(tree, present(part, languages), part.worktree_path, part.worktree_matches,
                            checked)  # fmt: skip
    held: Held = []
    # Only the rows of the chosen units' files (and of files no unit owns) are taken (compose).
    facts_of = frozenset(f.path for f in part.files if (u := owner.get(f.path)) is None or u.id in chosen)
    generation = index_snapshot(part, languages, progress, jobs, analysis=analysis,
                                names_elsewhere=names_elsewhere or frozenset(), go_homonyms=tree_go_homonyms(snap),
                                keep_held=held if names_elsewhere is None else None, facts_of=facts_of,
                                late=late)  # fmt: skip
    runs = tuple(analysis.unmerged) if analysis is not None else ()
    return Part(generation, frozenset(chosen), runs, held, late)


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


def given(part: Part) -> Given:
    return Given(codec.columns_of(part.generation), part.units, part.held, part.late)


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


def readable(snap: Snapshot) -> list[TreeFile]:
    """The files indexing reads: named in UTF-8, not links, not too large."""
    return [f for f in snap.files if utf8_path(f.path) and not f.symlink and f.size <= MAX_FILE_BYTES]


def present(snap: Snapshot, languages: frozenset[Language] | None) -> frozenset[Language]:
    found = {lang for f in snap.files if utf8_path(f.path) and (lang := language_of(f.path)) is not None}
    return frozenset(found if languages is None else found & languages)
