"""Reuse across commits: a commit's generation from an indexed ancestor's, re-indexing only the
planned units (kivgraph/plan.py) whose inputs changed and keeping the ancestor's rows for the rest.

A unit is re-indexed when a file of its changed, when a manifest above or below its root changed,
or when a unit it depends on changed its public surface (a symbol added, removed, renamed or
re-signed; a Go module that only added declarations reaches only the units that spell an added
name, ADDITIONS_SPELLED). It is re-indexed together with the units it depends on (their
declarations are what its uses resolve to; Go's type checker reads theirs too), but only its own
rows are taken. Anything
that would make the ancestor's rows wrong for this commit — another kivgraph or grammar, other
languages, type checkers on in one and off in the other, a changed role configuration — makes
`CannotReuse`, and the caller indexes in full. The result equals a full index of the commit.
"""

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pygit2

from kivgraph import __version__
from kivgraph.compose import Given, PartsDisagree, compose, inside, owner_of_scope
from kivgraph.indexing import GRAMMAR_PACKAGES, Progress, grammar_versions
from kivgraph.languages import adapter, language_of
from kivgraph.languages.python.modules import PYTHON_MANIFESTS
from kivgraph.languages.scopes import is_file_module
from kivgraph.languages.syntax import Declaration
from kivgraph.model import (
    CALLABLE_KINDS,
    FileStatus,
    Generation,
    GenerationHeader,
    InvisibleScope,
    Language,
    Symbol,
    SymbolKind,
)
from kivgraph.model.roles import CONFIG_FILE
from kivgraph.plan import SYNTAX, Plan, Unit, plan_snapshot
from kivgraph.scip.projects import ANALYZER_FAILURES
from kivgraph.scip.run import go_reads
from kivgraph.snapshot import MAX_FILE_BYTES, SKIPPED_DIRECTORIES, Snapshot, readable, utf8_path
from kivgraph.store import codec
from kivgraph.store.codec import Columns, int_list
from kivgraph.store.git import lookup, read_blob, tree_changes
from kivgraph.units import Dependencies, given, index_units

MANIFEST_NAMES = frozenset({"go.mod", "go.sum", "go.work", "go.work.sum", "package.json", "Cargo.toml",
                            "Cargo.lock", "pyproject.toml", "setup.cfg", "pubspec.yaml", "pubspec.lock"})  # fmt: skip
MANIFEST_SUFFIXES = (".json", ".toml", ".lock", ".yaml", ".yml", ".cfg", ".ini")
"""Files that configure how other files are read (tsconfig*.json, lockfiles…): a change reaches
every unit above and below them."""
INERT_SUFFIXES = (".md", ".markdown", ".rst", ".adoc", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".ico",
                  ".webp", ".pdf")  # fmt: skip
"""Files no analyzer or parser reads: a change to one re-indexes nothing."""
ANALYZER_SCOPES = ANALYZER_FAILURES | {"PACKAGE_NOT_LOADED", "MODULE_DEPENDENCIES_MISSING", "PROJECT_NOT_CONFIGURED"}
"""Blind spots only a run with type checkers records."""


class CannotReuse(Exception):
    """The ancestor's generation cannot stand in for any part of this one; the message says why."""


@dataclass(frozen=True, slots=True)
class UnitOutcome:
    unit: str
    reused: bool
    why: str
    """Why it was re-indexed ("" when reused)."""
    seconds: float | None = None
    """Its type checker's time, when one ran on it."""

    def as_json(self) -> dict[str, object]:
        return {"unit": self.unit, "reused": self.reused, "why": self.why,
                "seconds": None if self.seconds is None else round(self.seconds, 3)}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Reused:
    columns: Columns
    """The generation, as the codec stores it."""
    base: str
    """The commit whose generation was reused."""
    units: tuple[UnitOutcome, ...]
    rounds: int
    """How many times units were re-indexed: 2 when a change reached units only its re-index showed
    (what the changed files declare is read ahead, so usually 1)."""


def index_reusing(
    repo: pygit2.Repository,
    snap: Snapshot,
    base: Columns,
    languages: frozenset[Language] | None = None,
    progress: Progress | None = None,
    jobs: int | None = None,
    run_analyzers: bool = False,
    said: Callable[[str], None] | None = None,
) -> Reused:
    """The generation of `snap` (a commit) made from `base` (an ancestor's columns, never turned
    into rows but for its symbols) and the units re-indexed.

    `said` hears one line per unit as its fate is decided. Raises CannotReuse when nothing of
    `base` can be kept.
    """
    _check_recipe(snap, base.header)
    ancestor, base_scopes = _Ancestor(base), codec.invisible_scopes_of(base)
    plan = plan_snapshot(snap, languages)
    owner = {path: unit for unit in plan.units for path in unit.files}
    changed = _changed_paths(repo, base.header.commit, snap.commit)
    dirty = _dirty(plan, changed, languages, go_reads({f.path: f.read for f in readable(snap)}))
    _check_coverage(snap, base, plan, owner, dirty, changed, languages)
    if run_analyzers != _analyzed(base.header, base_scopes) and any(
        u.analyzer != SYNTAX for u in plan.units if u.id not in dirty
    ):
        raise CannotReuse(f"{base.header.commit[:12]} was indexed {'without' if run_analyzers else 'with'} type "
                          "checkers, this run is not")  # fmt: skip
    depends = Dependencies(plan, snap, base)
    # What the changed files declare, read ahead: a surface or a name that changes reaches the units
    # it concerns in the first round; the check after each round catches anything this misses.
    ahead = _declared_ahead(snap, ancestor, plan, changed, languages, _reader_at(repo, base.header.commit))
    reshaped, extended, renamed = ahead
    for unit_id in sorted(reshaped):
        if unit_id in depends.by_id:
            for dependent in sorted(depends.dependents(depends.by_id[unit_id])):
                dirty.setdefault(dependent, f"{unit_id} changed its public surface")
    for unit_id, added in sorted(extended.items()):
        if unit_id in depends.by_id:
            for dependent, why in _seeing(depends, depends.by_id[unit_id], added, set(dirty)).items():
                dirty.setdefault(dependent, why)
    for unit_id, why in depends.naming(renamed, set(dirty)).items():
        dirty.setdefault(unit_id, why)
    rounds = 0
    while True:
        rounds += 1
        for unit_id, why in sorted(dirty.items()):
            if said is not None:
                said(f"{unit_id}: re-indexing ({why})")
        closure = depends.closure(dirty)
        elsewhere = frozenset(name for file, name in ancestor.declared
                              if (unit := owner.get(file)) is not None and unit.id not in closure)  # fmt: skip
        part = index_units(snap, plan, dirty, depends, languages, progress, jobs, run_analyzers, elsewhere)
        sub = part.generation
        spread: dict[str, str] = {}
        for unit in plan.units:
            if unit.id not in dirty:
                continue
            before, after = ancestor.symbols_in(unit), sub.symbols
            if _surface(after, unit) == _surface(before, unit):
                continue
            added = _extension(unit, before, after) if _checked_alike(plan, unit, base_scopes, sub, changed) else None
            reached = (
                {d: f"{unit.id} changed its public surface" for d in depends.dependents(unit)}
                if added is None
                else _seeing(depends, unit, added, set())
            )
            for dependent, why in reached.items():
                if dependent not in dirty:
                    spread.setdefault(dependent, why)
        for unit_id, why in depends.naming(
            _renamed(ancestor.declared, sub.symbols, owner, dirty), {*dirty, *spread}
        ).items():
            spread[unit_id] = why
        if not spread:
            break
        dirty.update(spread)
    if said is not None:
        for unit in plan.units:
            if unit.id not in dirty:
                said(f"{unit.id}: reused from {base.header.commit[:12]}")
    kept = Given(base, frozenset(u.id for u in plan.units if u.id not in dirty))
    header = replace(sub.header, analyzers=_tools(plan, dirty, base.header, base_scopes, sub.header))
    try:
        columns = compose(snap, plan, [kept, given(part)], header, languages, run_analyzers)
    except PartsDisagree as err:
        raise CannotReuse(f"the re-indexed units and the kept ones disagree: {err}") from err
    seconds = {run.project.id: run.seconds for run in part.runs}
    outcomes = tuple(UnitOutcome(u.id, u.id not in dirty, dirty.get(u.id, ""), seconds.get(u.id)) for u in plan.units)
    return Reused(columns, base.header.commit, outcomes, rounds)


def _check_recipe(snap: Snapshot, header: GenerationHeader) -> None:
    if snap.worktree or header.worktree:
        raise CannotReuse("a working tree's generation is neither reused nor reused from")
    if header.indexer_version != __version__:
        raise CannotReuse(f"{header.commit[:12]} was indexed by kivgraph {header.indexer_version}, "
                          f"this is {__version__}")  # fmt: skip
    before = {(name, version) for name, version in header.analyzers if name in GRAMMAR_PACKAGES}
    if before != set(grammar_versions()):
        raise CannotReuse(f"the parsers changed since {header.commit[:12]} was indexed")
    if header.repository != snap.repository:
        raise CannotReuse(f"{header.commit[:12]}'s generation names another repository ({header.repository})")


def _changed_paths(repo: pygit2.Repository, before: str, after: str) -> set[str]:
    """The paths that differ between two commits (both sides of a rename), outside the directories
    indexing never reads."""
    old, new = lookup(repo, before), lookup(repo, after)
    if not isinstance(old, pygit2.Commit) or not isinstance(new, pygit2.Commit):
        raise CannotReuse(f"the commit {before[:12]} is not in this repository (a shallow clone?)")
    paths = {p for c in tree_changes(repo, old, new) for p in (c.old_path, c.new_path) if p}
    return {p for p in paths if not any(part in SKIPPED_DIRECTORIES for part in p.split("/")[:-1])}


def _dirty(plan: Plan, changed: set[str], languages: frozenset[Language] | None,
           read_by_go: Callable[[str], bool]) -> dict[str, str]:  # fmt: skip
    """The units a change to `changed` reaches directly, each with why. A file of no language inside
    a project root (a configuration above or below it) reaches the project — a script or a build
    may read anything — but a Go module only when the go command reads it (`read_by_go`): a root
    go.mod's tree holds the CI's workflows too, and a change to one re-ran opentelemetry-go's
    largest type check; and a Python project only for what `_python_reads` says: a changelog entry
    under opentelemetry-python's top re-ran the project of the files there."""
    dirty: dict[str, str] = {}
    analyzed = sorted((u for u in plan.units if u.analyzer != SYNTAX), key=lambda u: -len(u.root))

    def reads(unit: Unit, path: str) -> bool:
        if unit.analyzer == "scip-python":
            return _python_reads(unit, path)
        return unit.analyzer != "scip-go" or read_by_go(path)

    for path in sorted(changed):
        if path == CONFIG_FILE:
            raise CannotReuse(f"{CONFIG_FILE} changed: every file's role may have")
        name = path.rpartition("/")[2]
        directory = path.rpartition("/")[0]
        language = language_of(path)
        if language is not None:
            unit = plan.owner(path) if languages is None or language in languages else None
            if unit is not None:
                dirty.setdefault(unit.id, f"{path} changed")
        elif name in MANIFEST_NAMES or name.endswith(MANIFEST_SUFFIXES):
            for unit in plan.units:
                if (inside(directory, unit.root) or inside(unit.root, directory)) and reads(unit, path):
                    dirty.setdefault(unit.id, f"{path} changed")
        elif not name.endswith(INERT_SUFFIXES):
            holder = next((u for u in analyzed if inside(path, u.root)), None)
            if holder is not None and reads(holder, path):
                dirty.setdefault(holder.id, f"{path} changed")
    return dirty


def _python_reads(unit: Unit, path: str) -> bool:
    """Whether indexing a Python project reads a file that is not Python: the tree's
    pyrightconfig.json (every project's configuration starts from it: kivgraph/scip/run.py) and the
    project's own manifest (its distribution's name and version name its files' package) — pyright
    reads no other file, and nothing of a project runs while it is indexed."""
    directory, _, name = path.rpartition("/")
    if name == "pyrightconfig.json":
        return directory == ""
    return name in PYTHON_MANIFESTS and directory == unit.root


def _check_coverage(snap: Snapshot, base: Columns, plan: Plan, owner: dict[str, Unit], dirty: dict[str, str],
                    changed: set[str], languages: frozenset[Language] | None) -> None:  # fmt: skip
    """The base holds a record of every file of every unit kept, and of nothing this run leaves out."""
    recorded = set(base.file_paths())
    for unit in plan.units:
        if unit.id not in dirty:
            missing = next((p for p in unit.files if p not in recorded), None)
            if missing is not None:
                raise CannotReuse(f"{base.header.commit[:12]}'s generation has no {missing}: it was indexed "
                                  "with other --languages")  # fmt: skip
    wanted = {f.path for f in snap.files if (lang := language_of(f.path)) and (languages is None or lang in languages)}
    extra = next((p for p in sorted(recorded) if p not in wanted and p not in changed), None)
    if extra is not None:
        raise CannotReuse(f"{base.header.commit[:12]}'s generation holds {extra}, which this run leaves out "
                          "(other --languages)")  # fmt: skip


def _analyzed(header: GenerationHeader, scopes: Sequence[InvisibleScope]) -> bool:
    """Whether the generation was made with type checkers on."""
    tools = {name for name, _ in header.analyzers if name not in GRAMMAR_PACKAGES}
    return bool(tools) or any(s.reason in ANALYZER_SCOPES for s in scopes)


class _Ancestor:
    """What reuse reads of the ancestor's symbols, off its columns (turning all of them into rows
    would cost more than the rest of a small change's reuse): every declaration's file and name,
    and the symbols of the units it asks for."""

    def __init__(self, base: Columns) -> None:
        self.base = base
        symbols = base.tables["symbols"]
        modules = np.flatnonzero(symbols["kind"] == base.vocabularies["symbol_kind"].index(SymbolKind.MODULE))
        own = {int(i) for i, s in zip(modules, codec.symbols_of(base, modules), strict=True) if is_file_module(s)}
        self.paths = base.file_paths()
        paths = [*self.paths, ""]
        files = [paths[f] for f in int_list(symbols["file"])]
        names = [base.strings[n] for n in int_list(symbols["name"])]
        self.declared = [(file, name) for i, (file, name) in enumerate(zip(files, names, strict=True)) if i not in own]
        """(file, name) of each symbol but the files' own modules."""

    def symbols_in(self, unit: Unit | set[str]) -> tuple[Symbol, ...]:
        files = set(unit.files) if isinstance(unit, Unit) else unit
        wanted = [i for i, path in enumerate(self.paths) if path in files]
        return codec.symbols_of(self.base, np.flatnonzero(np.isin(self.base.tables["symbols"]["file"], wanted)))


def _declared_ahead(
    snap: Snapshot,
    ancestor: _Ancestor,
    plan: Plan,
    changed: set[str],
    languages: frozenset[Language] | None,
    was_read: Callable[[str], bytes | None],
) -> tuple[set[str], dict[str, set[str]], set[str]]:
    """(the units whose changed files declare otherwise than in `base` — names, kinds, signatures,
    exports, and the bodies of functions whose return type is inferred from them —, of the other
    units whose changed files only add declarations (`_added_ahead`) the names they add, the names
    declared somewhere before and not now or the reverse), from parsing the changed files alone
    (`was_read`: a file's bytes in `base`'s commit)."""
    files = {f.path: f for f in snap.files}
    before: Counter[str] = Counter(name for _, name in ancestor.declared)
    after = Counter(before)
    was: dict[str, Counter[tuple[object, ...]]] = {}
    for s in ancestor.symbols_in(changed):
        if not is_file_module(s):
            was.setdefault(s.file, Counter())[(s.name, s.kind, s.signature, s.exported)] += 1
            after[s.name] -= 1
    reshaped: set[str] = set()
    extended: dict[str, set[str]] = {}
    for path in sorted(changed):
        language = language_of(path)
        if language is None or (languages is not None and language not in languages):
            continue
        tree_file = files.get(path)
        now: Counter[tuple[object, ...]] = Counter()
        inferred: Counter[tuple[str, bytes]] = Counter()
        declarations: tuple[Declaration, ...] = ()
        clean = True
        if tree_file is not None and not tree_file.symlink and tree_file.size <= MAX_FILE_BYTES and utf8_path(path):
            data = tree_file.read()
            syntax = adapter(language).parse(path, data)
            declarations, clean = syntax.declarations, not (syntax.problems or syntax.timed_out)
            for d in declarations:
                now[_declared_shape(d)] += 1
                after[d.name] += 1
            inferred = _inferred_bodies(language, data, declarations)
        unit = plan.owner(path)
        here = was.get(path, Counter())
        if unit is None or (now == here and inferred == _inferred_was(language, path, was_read)):
            continue
        kept_files = was_read(path) is not None or _never_imported(path)
        added = _added_ahead(unit, declarations, here, now) if clean and kept_files else None
        if added is None:
            reshaped.add(unit.id)
        else:
            extended.setdefault(unit.id, set()).update(added)
    renamed = {n for n in before.keys() | after.keys() if (before[n] > 0) != (after[n] > 0)}
    return reshaped, {u: names for u, names in extended.items() if u not in reshaped}, renamed


ADDITIONS_SPELLED = frozenset({"scip-go"})
"""Units whose added declarations can change another unit's index only where that unit spells an
added name: a Go package's declaration is named, qualified by its package, wherever another
package uses it (a dot-import's uses spell it too), and a type's method set grows only by a
method declared on it — a member added to a type that was there is a change of that type, since
it may make it implement another unit's interface or stop doing so, but for a struct's named field
(`_named_field`; an embedded one brings its methods). Only exported names count:
another package cannot name the others. A new file is a change of its package, an import of the
package resolving to its files — but for a test file (`_never_imported`). A TypeScript module's
default export is used under any name, and a Python module's new `__getattr__` answers names
nobody declared: their units re-run every dependent."""


def _never_imported(path: str) -> bool:
    """A Go test file: what an import of its package resolves to leaves it out, and no other package
    can name what it declares."""
    return path.endswith("_test.go")


def _declared_shape(d: Declaration) -> tuple[object, ...]:
    return (d.name, d.kind, d.signature, d.exported)


def _added_ahead(unit: Unit, declarations: Sequence[Declaration], was: Counter[tuple[object, ...]],
                 now: Counter[tuple[object, ...]]) -> set[str] | None:  # fmt: skip
    """The exported names a changed file of `unit` (one that was there, or a test file) adds, when
    all it does to what it declares is add top-level declarations and what they hold, or named
    fields to a struct (ADDITIONS_SPELLED); else None."""
    if unit.analyzer not in ADDITIONS_SPELLED or was - now:
        return None
    added = now - was
    new = [d for d in declarations if _declared_shape(d) in added]
    inside = {d: [e for e in declarations if e is not d and e.start_byte <= d.start_byte and d.end_byte <= e.end_byte
                  and (e.start_byte, e.end_byte) != (d.start_byte, d.end_byte)] for d in new}  # fmt: skip
    top = {d.name for d in new if not d.owner and not inside[d]}
    for d in new:
        if d.owner and d.owner not in top:
            return None
        if any(_declared_shape(e) not in added for e in inside[d]):
            holder = min(inside[d], key=lambda e: e.end_byte - e.start_byte)
            if not (_named_field(d.kind, d.name, d.signature) and holder.kind is SymbolKind.STRUCT):
                return None
    return {d.name for d in new if d.exported}


def _named_field(kind: SymbolKind, name: str, signature: str) -> bool:
    """A struct field written with its name (`Chunk bool`, `B, C string`), not an embedded type:
    adding one to a struct that was there changes no method set, and a use of it spells it."""
    return kind is SymbolKind.FIELD and re.match(rf"{re.escape(name)}[ ,\t]", signature) is not None


def _extension(unit: Unit, before: Sequence[Symbol], after: Sequence[Symbol]) -> set[str] | None:
    """The exported names of the symbols a re-indexed unit added, when its public surface only
    grew by top-level declarations and what they hold, or named fields of a struct
    (ADDITIONS_SPELLED): nothing removed, renamed, re-signed or re-keyed, no other member added to
    a symbol that was there, no file added but a test file; else None."""
    if unit.analyzer not in ADDITIONS_SPELLED:
        return None
    files = set(unit.files)
    was = {_shape(s) for s in before if s.file in files}
    now = {_shape(s): s for s in after if s.file in files}
    if not was <= now.keys():
        return None
    added = [s for shape, s in now.items() if shape not in was]
    keys = {s.key for s in added}
    by_key = {s.key: s for s in now.values()}
    for s in added:
        if is_file_module(s) and not _never_imported(s.file):
            return None
        if s.container is None or s.container in keys:
            continue
        holder = by_key.get(s.container)
        if not (_named_field(s.kind, s.name, s.signature) and holder is not None and holder.kind is SymbolKind.STRUCT):
            return None
    return {s.name for s in added if s.exported}


def _checked_alike(plan: Plan, unit: Unit, base_scopes: Sequence[InvisibleScope], sub: Generation,
                   changed: set[str]) -> bool:  # fmt: skip
    """Whether a re-indexed unit's changed files parsed cleanly and its type checker left the blind
    spots it left in the ancestor: what another unit's type checker reads of it beyond its
    declarations is then as it was (a package that no longer loads is a blind spot of its users too)."""
    files = set(unit.files)
    if any(f.path in changed and f.path in files and f.status is not FileStatus.INDEXED for f in sub.files):
        return False

    def own(scopes: Sequence[InvisibleScope]) -> set[InvisibleScope]:
        return {s for s in scopes if (holder := owner_of_scope(plan, s)) is not None and holder.id == unit.id}

    return own(base_scopes) == own(sub.invisible_scopes)


def _seeing(depends: Dependencies, unit: Unit, added: set[str], dirty: set[str]) -> dict[str, str]:
    """The units that depend on `unit` and spell a name it added (but those `dirty`), each with why."""
    elsewhere = {u.id for u in depends.plan.units} - depends.dependents(unit)
    return depends.naming(added, elsewhere | dirty, f"{unit.id} added a declaration of a name it spells")


INFERRING = frozenset({Language.PYTHON, Language.TYPESCRIPT, Language.JAVASCRIPT})
"""Languages whose type checkers infer a function's return type from its body when none is
written: a change to that body may change what a use elsewhere resolves to (`make().run()` reaches
another class's `run`), so it changes the public surface as a signature does."""
_RETURN_ANNOTATION = re.compile(r"\)\s*(?:->|:)\s*\S")


def _inferred_bodies(language: Language, data: bytes,
                     declarations: Sequence[Declaration]) -> Counter[tuple[str, bytes]]:  # fmt: skip
    """(name, digest of the source) of each function or method of a file (its `declarations`, as
    parsed from `data`) whose return type its type checker infers from the body (no `-> T`, `): T`
    written)."""
    if language not in INFERRING:
        return Counter()
    return Counter(
        (d.name, hashlib.blake2b(data[d.start_byte : d.end_byte], digest_size=12).digest())
        for d in declarations
        if d.kind in CALLABLE_KINDS and not _RETURN_ANNOTATION.search(d.signature)
    )


def _inferred_was(language: Language, path: str, read: Callable[[str], bytes | None]) -> Counter[tuple[str, bytes]]:
    """`_inferred_bodies` of the file as it was (`read`: its bytes in the ancestor's commit)."""
    if language not in INFERRING:
        return Counter()
    data = read(path)
    if data is None or len(data) > MAX_FILE_BYTES:
        return Counter()
    return _inferred_bodies(language, data, adapter(language).parse(path, data).declarations)


def _reader_at(repo: pygit2.Repository, commit: str) -> Callable[[str], bytes | None]:
    """A file's bytes in a commit's tree (fetched, in a partial clone, as any blob is), None when
    it has none there."""
    tree = lookup(repo, commit)
    root = tree.tree if isinstance(tree, pygit2.Commit) else None

    def read(path: str) -> bytes | None:
        try:
            found = root[path] if root is not None else None
        except KeyError:
            return None
        return read_blob(repo, found.id) if found is not None and found.type == pygit2.enums.ObjectType.BLOB else None

    return read


def _renamed(declared: Sequence[tuple[str, str]], sub: Sequence[Symbol], owner: dict[str, Unit],
             dirty: dict[str, str]) -> set[str]:  # fmt: skip
    """The names declared somewhere in the tree before (`declared`: the ancestor's (file, name)
    declarations) and not now, or now and not before: the resolver records a use it cannot settle
    only when some declaration has its name."""

    def fresh(path: str) -> bool:
        unit = owner.get(path)
        return unit is not None and unit.id in dirty

    before = {name for _, name in declared}
    after = {name for file, name in declared if not fresh(file)}
    after |= {s.name for s in sub if not is_file_module(s) and fresh(s.file)}
    return before ^ after


def _surface(symbols: Sequence[Symbol], unit: Unit) -> frozenset[tuple[object, ...]]:
    """What other units can see of a unit: its symbols, their kinds, signatures and nesting."""
    files = set(unit.files)
    return frozenset(_shape(s) for s in symbols if s.file in files)


def _shape(s: Symbol) -> tuple[object, ...]:
    return (s.key, s.qualified_name, s.kind, s.signature, s.exported, s.container)


def _tools(
    plan: Plan, dirty: dict[str, str], base: GenerationHeader, scopes: Sequence[InvisibleScope], sub: GenerationHeader
) -> tuple[tuple[str, str], ...]:
    """The parsers and type checkers the generation was made with: those that ran now, and those of
    the base that ran on a unit kept (one whose run there left no failure)."""
    failed = {u.id for s in scopes if s.reason in ANALYZER_FAILURES
              for u in [owner_of_scope(plan, s)] if u is not None}  # fmt: skip
    kept_tools = {u.analyzer for u in plan.units if u.id not in dirty and u.analyzer != SYNTAX and u.id not in failed}
    now = dict(sub.analyzers)
    tools = set(sub.analyzers)
    for name, version in base.analyzers:
        if name in GRAMMAR_PACKAGES or name not in kept_tools:
            continue
        if name in now and now[name] != version:
            raise CannotReuse(f"{name} is now {now[name]}; {base.commit[:12]} was indexed with {version}")
        tools.add((name, version))
    return tuple(sorted(tools))
