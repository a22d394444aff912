"""Part of a tree indexed by itself: some of the plan's units (kivgraph/plan.py) with the units they
depend on; one generation is composed of such parts by kivgraph/compose.py.

Reuse across commits (kivgraph/reuse.py: an ancestor's rows and the changed units') and sharded
indexing (kivgraph/shard.py: each shard's units) are both made of these two steps.
"""

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from kivgraph.compose import Given
from kivgraph.indexing import Progress, index_snapshot, parsed_paths, tree_go_homonyms
from kivgraph.languages import RepoLayout, language_of, path_prefixes
from kivgraph.languages.resolve import Held
from kivgraph.languages.typescript.manifests import normalize, read_paths_config, tsconfig_includes
from kivgraph.languages.typescript.modules import mapped_by_config, written_specifiers
from kivgraph.languages.typescript.modules import resolve as resolve_module
from kivgraph.model import Generation, Language
from kivgraph.plan import SYNTAX, Plan, Unit, go_replaced, reaches_by_path
from kivgraph.scip.late import LateGo
from kivgraph.scip.run import Analysis, AnalyzerRun
from kivgraph.snapshot import MAX_FILE_BYTES, Snapshot, present, readable, utf8_path
from kivgraph.store import codec
from kivgraph.store.codec import Columns, int_list

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


class Dependencies:
    """Which units a unit's uses may reach: what its manifests declare, every Go module under a
    go.work, any unit whose files a syntax-only unit could import by path (the same
    languages), the units whose name its files spell, and what an earlier generation's edges show
    it used. Without an earlier generation, only Go's reach is known for certain (a package is
    imported by its module's path): a unit of another language reaches every unit of its languages.
    With one, a TypeScript project reaches what its files import and its tsconfig includes, read
    from them (`_imported`, `_included`): what it used before shows in the earlier edges, and what
    it may use now is written in its files.

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
        self._dependents: dict[str, set[str]] | None = None

    @cached_property
    def _owners(self) -> dict[str, Unit]:
        return self.plan.owners()

    @cached_property
    def layout(self) -> RepoLayout:
        """The tree as TypeScript's module resolution reads it (for `_imported`)."""
        return RepoLayout(self.files, self._bytes)

    def of(self, unit: Unit) -> set[str]:
        if unit.id in self._of:
            return self._of[unit.id]
        used: set[str] = self.used.get(unit.id, set()) if self.used is not None else set()
        declared = self._replaced(unit) if unit.analyzer == "scip-go" else set(unit.depends_on)
        found = declared | used | self._spelled(unit)
        if self.used is not None and unit.analyzer == "scip-typescript":
            found |= self._imported(unit) | self._included(unit)
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
        """The units that depend on `unit`; for a TypeScript unit, transitively among TypeScript
        units: a module re-exports another's declarations (`export * from '@acme/core'`), and a
        unit importing the re-exporter may use what the other now declares. A Python project's
        index names what it uses by the module declaring it, whichever re-exported it: what it used
        shows in the earlier generation's edges (`of`), and a use a change may newly resolve spells
        the name (reuse.py `naming`)."""
        if self._dependents is None:
            self._dependents = {u.id: set() for u in self.plan.units}
            for other in self.plan.units:
                for dep in self.of(other):
                    if dep in self._dependents and dep != other.id:
                        self._dependents[dep].add(other.id)
        found = set(self._dependents[unit.id])
        if unit.analyzer == "scip-typescript":
            stack = [d for d in found if self.by_id[d].analyzer == "scip-typescript"]
            while stack:
                for further in self._dependents[stack.pop()] - found - {unit.id}:
                    found.add(further)
                    if self.by_id[further].analyzer == "scip-typescript":
                        stack.append(further)
        return found

    def _imported(self, unit: Unit) -> set[str]:
        """The units a TypeScript unit's files import, by every specifier they write: the unit of
        the file it resolves to as the syntax layer resolves it, or, where it resolves to nothing
        (a file a change may add), the unit that would hold what it names — by its relative path,
        or through the tsconfig's `paths` and `baseUrl`."""
        found: set[str] = set()
        config = read_paths_config(self.layout, f"{unit.root}/tsconfig.json" if unit.root else "tsconfig.json", 0)
        for path in unit.files:
            data = self._bytes(path)
            for spec in written_specifiers(data) if data is not None else ():
                target = resolve_module(spec, path, self.layout)
                if target.files:
                    found |= {u.id for f in target.files if (u := self._owners.get(f)) is not None}
                    continue
                if spec.startswith(("./", "../")):
                    named = [posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))]
                else:
                    named = mapped_by_config(config, spec) if config is not None else []
                for base in named:
                    for guess in (f"{base}.ts", f"{base}/index.ts", base):
                        holder = self.plan.owner(guess)
                        if holder is not None:
                            found.add(holder.id)
        found.discard(unit.id)
        return found

    def _included(self, unit: Unit) -> set[str]:
        """The units a TypeScript unit's tsconfig (or the one it extends, whose `include` and
        `files` it inherits) brings into its program from outside its root: `"include":
        ["../shared/**/*"]` makes the files of a unit under ../shared its own program's."""
        found: set[str] = set()
        manifest = f"{unit.root}/tsconfig.json" if unit.root else "tsconfig.json"
        for directory, entries in tsconfig_includes(self.layout, manifest):
            for entry in entries:
                static = re.split(r"[*?{\[]", entry, maxsplit=1)[0]
                where = normalize(posixpath.join(directory, static))
                if not unit.root or where == unit.root or where.startswith(f"{unit.root}/"):
                    continue  # inside its own root
                found |= {u.id for u in self.plan.units if u is not unit and (
                    not where or not u.root or u.root == where or u.root.startswith(f"{where}/")
                    or where.startswith(f"{u.root}/"))}  # fmt: skip
        return found

    def naming(self, names: set[str], skipped: set[str],
               because: str = "a name it spells is declared or gone") -> dict[str, str]:  # fmt: skip
        """The units (but `skipped`) whose files spell one of `names` as a word, each with why
        (`because`, and the first name found)."""
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
                    found[unit.id] = f"{because}: {hit.group(1).decode()}"
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
                        for prefix in path_prefixes(imported):
                            found.update(named.get(prefix, ()))
                else:
                    for name, ids in named.items():
                        if not ids <= found and name.encode() in data:
                            found |= ids
            self.mentions[unit.id] = found
        return self.mentions[unit.id]


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
        go_modules = frozenset(u.root for u in plan.units if u.analyzer == "scip-go")
        analysis = Analysis(tree, present(part, languages), part.worktree_path, part.worktree_matches,
                            checked, go_modules)  # fmt: skip
    held: Held = []
    # Python packages are named as the whole tree names them (RepoLayout.whole); nothing else asks.
    whole = parsed_paths(snap) if any(u.analyzer == "scip-python" for u in plan.units) else None
    # Only the rows of the chosen units' files (and of files no unit owns) are taken (compose).
    facts_of = frozenset(f.path for f in part.files if (u := owner.get(f.path)) is None or u.id in chosen)
    generation = index_snapshot(part, languages, progress, jobs, analysis=analysis,
                                names_elsewhere=names_elsewhere or frozenset(), go_homonyms=tree_go_homonyms(snap),
                                keep_held=held if names_elsewhere is None else None, facts_of=facts_of,
                                late=late, tree_files=whole)  # fmt: skip
    runs = tuple(analysis.unmerged) if analysis is not None else ()
    return Part(generation, frozenset(chosen), runs, held, late)


def given(part: Part) -> Given:
    return Given(codec.columns_of(part.generation), part.units, part.held, part.late)
