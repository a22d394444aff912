"""The units of work of a tree: the project roots its analyzers run on (each go.mod, topmost
tsconfig.json, topmost Cargo.toml, Python project root) and the rest as syntax-only units, each with
its files, size and the units it depends on; in dependency order, and balanced over N shards."""

import json
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from kivgraph.errors import InvalidArgumentError
from kivgraph.languages import RepoLayout, language_of
from kivgraph.languages.go.modules import MODULE_LINE, local_replacements
from kivgraph.languages.python.modules import PYTHON_SUFFIXES, module_places, written_modules
from kivgraph.languages.typescript.manifests import read_paths_config
from kivgraph.languages.typescript.modules import mapped_by_config, written_specifiers
from kivgraph.model import Language
from kivgraph.scip.projects import projects
from kivgraph.snapshot import MAX_FILE_BYTES, Snapshot, utf8_path

SYNTAX = "syntax"
"""The analyzer of a unit no type checker runs on: the syntax layer alone."""
ANALYZER_START = 400_000
"""A type checker's run costs about what indexing this many bytes of source does before it reads
one file (scip-go's `go list`, its start and the standard library's packages it loads). Measured
on benchmarks/monorepo_bench.py: a module alone costs ~200 KB's worth beside its own bytes, but
in a shard, where the runs share two cores with the parse, the shards' times followed their
loads best at 400–500 KB a run (correlation 0.73 over two partitions' eight shards, 0.30 at
200 KB), and the shard that waited on the most runs was the slowest."""
DATA_FILE_BYTES = 64 * 1024
"""Past this many bytes a file's source counts a tenth: a file that large is data (generated
tables, test vectors) far more often than code, and cheap per byte to index. Measured on
benchmarks/monorepo_bench.py: uniseg's 2.1 MB of Unicode tables took what testify's 0.9 MB of
code does, and counted in full, it took a shard of its own while another ran a second longer."""
SWAPPED_UNITS = 64
"""Up to this many units, balancing also tries exchanging two units between shards, not only
moving one (a step weighs every pair of them)."""
LIGHTEN_BUDGET = 500_000
"""What balancing may spend moving units after placing them, in units reached by those it tries:
about a microsecond each, so half a second at most (a 1,000-unit plan whose units reach ~30
each stops there; the monorepo bench's 20 units settle in ~1,400)."""
_COVERS = {
    Language.GO: (Language.GO,),
    Language.TYPESCRIPT: (Language.TYPESCRIPT, Language.JAVASCRIPT),
    Language.RUST: (Language.RUST,),
    Language.PYTHON: (Language.PYTHON,),
}
_GO_REQUIRE_BLOCK = re.compile(r"^\s*require\s*\((.*?)\)", re.MULTILINE | re.DOTALL)
_GO_REQUIRE_LINE = re.compile(r"^\s*require\s+([^\s(]+)", re.MULTILINE)
_JSON_COMMENTS = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMAS = re.compile(r",(\s*[}\]])")


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit of work: an analyzer's project root (or a syntax-only directory) and its files."""

    root: str
    """Repository-relative directory, "" for the top of the tree."""
    analyzer: str
    """The type checker that runs on it (`scip-go`, …), or `syntax`."""
    language: str
    """The language its analyzer checks ("" for a syntax-only unit, whose files may be of several)."""
    name: str
    """What other units call it: a Go module path, an npm or crate name, else its root."""
    files: tuple[str, ...]
    bytes: int
    depends_on: tuple[str, ...] = ()
    """The ids of the units it depends on (Go require/replace, npm dependencies, tsconfig
    references and the `paths` its files import through, Cargo path dependencies, the Python
    projects whose modules its files import)."""
    work: int = 0
    """What indexing it costs, in bytes of source: those it parses (a file too large to parse costs
    nothing), and for an analyzed unit a type checker's start (ANALYZER_START)."""

    @property
    def id(self) -> str:
        return f"{self.analyzer}:{self.root or '.'}"

    @property
    def languages(self) -> frozenset[Language]:
        """The languages of its files: those its analyzer checks, or those a syntax-only unit holds."""
        if self.analyzer == SYNTAX:
            return frozenset(lang for p in self.files if (lang := language_of(p)) is not None)
        return frozenset(_COVERS.get(Language(self.language), (Language(self.language),)))

    @property
    def parsed_work(self) -> int:
        """What it costs a shard that parses it for another unit's sake, without its type checker."""
        return self.work if self.analyzer == SYNTAX else self.work - ANALYZER_START

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "root": self.root, "analyzer": self.analyzer, "language": self.language,
                "name": self.name, "files": len(self.files), "bytes": self.bytes, "work": self.work,
                "depends_on": list(self.depends_on)}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Plan:
    units: tuple[Unit, ...]
    """In dependency order: a unit comes after the units it depends on (a cycle in id order)."""
    cyclic: tuple[str, ...] = field(default=())
    """The ids of units in a dependency cycle, or behind one: no order puts them after all they need."""

    def shards(self, count: int, reaches: Callable[[Unit], Iterable[str]]) -> list[list[Unit]]:
        """The units over `count` shards, balanced by what each shard will do. A shard type-checks
        its units and parses every unit they reach, for their declarations (a Go module's uses of a
        sibling another shard type-checks are bound at the merge: kivgraph/scip/late.py), so units
        that reach the same ones go together: each unit, largest first (a module many use before
        its users), onto the shard whose work it leaves least (a unit is never split: its analyzer
        runs once over all of it); then, while moving one unit to another shard or exchanging two
        lightens the heaviest shard, that is done.

        `reaches`: the units a unit reaches directly, as indexing will find them (units.py
        `Dependencies.of`, which reads the files: a Go module's imports)."""
        if count < 1:
            raise InvalidArgumentError(f"a plan is split into at least one shard, not {count}")
        reach = self._reach(reaches)
        cost = {u.id: (u.work, u.parsed_work) for u in self.units}
        checked = {u.id: frozenset({u.id}) for u in self.units}
        shards = [_ShardLoad(checked, reach, cost) for _ in range(count)]
        for unit in sorted(self.units, key=lambda u: (-u.work, u.id)):
            best = min(range(count), key=lambda k: (shards[k].load_with(unit.id), k))
            shards[best].add(unit.id)
        _lighten(shards, swaps=len(self.units) <= SWAPPED_UNITS)
        return [[u for u in self.units if u.id in shard.owned] for shard in shards]

    def _reach(self, reaches: Callable[[Unit], Iterable[str]]) -> dict[str, set[str]]:
        """Each unit → itself and the units its shard indexes with it, transitively."""
        direct = {u.id: set(reaches(u)) for u in self.units}
        reach: dict[str, set[str]] = {}
        for unit in self.units:
            seen, stack = {unit.id}, [unit.id]
            while stack:
                for dep in direct.get(stack.pop(), ()):
                    if dep not in seen and dep in direct:
                        seen.add(dep)
                        stack.append(dep)
            reach[unit.id] = seen
        return reach

    def owners(self) -> dict[str, Unit]:
        """Each file of the plan's units → its unit."""
        return {path: unit for unit in self.units for path in unit.files}

    def owner(self, path: str) -> Unit | None:
        """The unit a source file at `path` belongs to (whether or not the tree has it): the deepest
        project root whose analyzer checks its language, else the syntax-only unit of its top directory."""
        language = language_of(path)
        if language is None:
            return None
        covering = [u for u in self.units if u.analyzer != SYNTAX and _inside(path, u.root)
                    and language in _COVERS.get(Language(u.language), ())]  # fmt: skip
        if covering:
            return max(covering, key=lambda u: len(u.root))
        top = path.partition("/")[0] if "/" in path else ""
        return next((u for u in self.units if u.analyzer == SYNTAX and u.root == top), None)


class _ShardLoad:
    """The units a shard owns and what it will do for them, kept as counts so that adding or
    removing a unit costs what that unit reaches, not what the shard holds: each unit its owned
    units type-check costs its `work`, each other unit they reach its `parsed_work`."""

    def __init__(self, checked: dict[str, frozenset[str]], reach: dict[str, set[str]],
                 cost: dict[str, tuple[int, int]]) -> None:  # fmt: skip
        self.checked, self.reach, self.cost = checked, reach, cost
        self.owned: set[str] = set()
        self.checking: dict[str, int] = {}
        self.reaching: dict[str, int] = {}
        self.load = 0
        self.touched = {unit: tuple(checked[unit] | reach[unit]) for unit in checked}
        """What adding a unit changes the count of, once: balancing adds and removes units some
        hundred thousand times on a plan of hundreds, each at every shard's start."""

    def add(self, unit: str) -> None:
        self.owned.add(unit)
        self._count(unit, 1)

    def remove(self, unit: str) -> None:
        self.owned.remove(unit)
        self._count(unit, -1)

    def load_with(self, unit: str) -> int:
        self.add(unit)
        load = self.load
        self.remove(unit)
        return load

    def _count(self, unit: str, step: int) -> None:
        """Each unit `unit` touches costs its `work` while an owned unit checks it, else its
        `parsed_work` while one reaches it, else nothing."""
        checked, reached = self.checked[unit], self.reach[unit]
        checking, reaching, cost = self.checking, self.reaching, self.cost
        load = self.load
        for other in self.touched[unit]:
            work, parsed_work = cost[other]
            checks, reaches = checking.get(other, 0), reaching.get(other, 0)
            load -= work if checks > 0 else parsed_work if reaches > 0 else 0
            if other in checked:
                checks = checking[other] = checks + step
            if other in reached:
                reaches = reaching[other] = reaches + step
            load += work if checks > 0 else parsed_work if reaches > 0 else 0
        self.load = load


def _lighten(shards: list[_ShardLoad], swaps: bool) -> None:
    """Move a unit off the heaviest shard, or exchange it for one of another shard's, while that
    lowers the heaviest load: the best such step each time, until none does or LIGHTEN_BUDGET
    is spent (a try costs the units the two it moves reach)."""
    spent = 0
    while spent < LIGHTEN_BUDGET:
        heaviest = max(shards, key=lambda shard: shard.load)
        before = heaviest.load
        best: tuple[int, str, _ShardLoad, str | None] | None = None
        for unit in sorted(heaviest.owned):
            heaviest.remove(unit)
            for shard in shards:
                if shard is heaviest:
                    continue
                rest = max((s.load for s in shards if s is not heaviest and s is not shard), default=0)
                for other in [None, *sorted(shard.owned)] if swaps else [None]:
                    after = max(_exchanged(heaviest, shard, unit, other), rest)
                    spent += len(heaviest.reach[unit]) + (len(heaviest.reach[other]) if other is not None else 0)
                    if after < before and (best is None or after < best[0]):
                        best = (after, unit, shard, other)
            heaviest.add(unit)
        if best is None:
            break
        _, unit, shard, other = best
        heaviest.remove(unit)
        shard.add(unit)
        if other is not None:
            shard.remove(other)
            heaviest.add(other)


def _exchanged(away: _ShardLoad, to: _ShardLoad, unit: str, other: str | None) -> int:
    """The heavier of two shards were `unit` (already off `away`) on `to` and `other` (of `to`) on
    `away`; both are left as they were."""
    to.add(unit)
    if other is not None:
        to.remove(other)
        away.add(other)
    heavier = max(away.load, to.load)
    if other is not None:
        away.remove(other)
        to.add(other)
    to.remove(unit)
    return heavier


def reaches_by_path(unit: Unit, languages: frozenset[Language], other: frozenset[Language], uses_known: bool) -> bool:
    """Whether a unit (of `languages`) may use one of `other` languages with no manifest or import
    naming it: a syntax-only unit imports any file of its languages by path, and so, for all anyone
    can tell, may a TypeScript or Rust unit when no earlier generation shows what it used
    (`uses_known`). A Go module reaches another only by its module path, a Python project by the
    modules its files import (`_python_imports`); a TypeScript unit whose uses are known, by what
    its files import (units.py `Dependencies`, which reads them)."""
    by_path = unit.analyzer == SYNTAX or (not uses_known and unit.analyzer not in ("scip-go", "scip-python"))
    return bool(by_path and languages & other)


def plan(files: Iterable[tuple[str, int]], read: Callable[[str], bytes | None],
         languages: frozenset[Language] | None = None) -> Plan:  # fmt: skip
    """The units of a tree of (path, size) files; `read` gives a manifest's bytes (None when absent)."""
    sized = dict(files)
    present = {lang for path in sized if (lang := language_of(path)) is not None}
    wanted = frozenset(present if languages is None else present & languages)
    roots = sorted(projects(sized, wanted), key=lambda p: (-p.root.count("/"), -len(p.root), p.root))
    members: dict[tuple[str, str], list[str]] = {}
    remainder: dict[str, list[str]] = {}
    for path in sorted(sized):
        language = language_of(path)
        if language is None or language not in wanted:
            continue
        owner = next((p for p in roots if language in _COVERS.get(p.language, ()) and _inside(path, p.root)), None)
        if owner is not None:
            members.setdefault((owner.spec.name, owner.root), []).append(path)
        else:
            remainder.setdefault(path.partition("/")[0] if "/" in path else "", []).append(path)
    units: list[Unit] = []
    for project in roots:  # a root with no files of its own is a unit still: its analyzer runs, and says so
        paths = members.get((project.spec.name, project.root), [])
        units.append(Unit(project.root, project.spec.name, project.language.value,
                          _name(project.language, project.root, read), tuple(paths),
                          sum(sized[p] for p in paths), work=ANALYZER_START + _parsed(paths, sized)))  # fmt: skip
    for root, paths in sorted(remainder.items()):
        units.append(Unit(root, SYNTAX, "", root or ".", tuple(paths), sum(sized[p] for p in paths),
                          work=_parsed(paths, sized)))  # fmt: skip
    layout = RepoLayout(sized, read) if any(u.analyzer in ("scip-typescript", "scip-python") for u in units) else None
    units = [_with_dependencies(u, units, read, layout) for u in units]
    return _ordered(units)


def _parsed(paths: list[str], sized: dict[str, int]) -> int:
    return sum(min(size, DATA_FILE_BYTES) + max(0, size - DATA_FILE_BYTES) // 10
               for p in paths if (size := sized[p]) <= MAX_FILE_BYTES)  # fmt: skip


def plan_snapshot(snap: Snapshot, languages: frozenset[Language] | None = None) -> Plan:
    """The plan of a snapshot's tree: the files indexing reads (not symlinks, nor names that are not UTF-8)."""
    by_path = {f.path: f for f in snap.files if not f.symlink and utf8_path(f.path)}

    def read(name: str) -> bytes | None:
        found = by_path.get(name)
        return found.read() if found is not None else None

    return plan([(f.path, f.size) for f in by_path.values()], read, languages)


def _inside(path: str, root: str) -> bool:
    return root == "" or path.startswith(root + "/")


def _manifest(root: str, name: str) -> str:
    return f"{root}/{name}" if root else name


def _text(read: Callable[[str], bytes | None], path: str) -> str:
    data = read(path)
    return data.decode("utf-8", "replace") if data is not None else ""


def _json(read: Callable[[str], bytes | None], path: str) -> dict[str, Any]:
    """A JSON (or tsconfig-style JSON with comments and trailing commas) object, {} when unreadable."""
    text = _JSON_COMMENTS.sub(lambda m: m.group() if m.group().startswith('"') else "", _text(read, path))
    try:
        value = json.loads(_TRAILING_COMMAS.sub(r"\1", text))
    except ValueError:
        return {}
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def _fields(value: object) -> dict[str, object]:
    """`value` when it is a table (a JSON object, a TOML table), else no fields."""
    return cast(dict[str, object], value) if isinstance(value, dict) else {}


def _toml(read: Callable[[str], bytes | None], path: str) -> dict[str, Any]:
    try:
        return tomllib.loads(_text(read, path))
    except tomllib.TOMLDecodeError:
        return {}


def _name(language: Language, root: str, read: Callable[[str], bytes | None]) -> str:
    if language is Language.GO:
        found = MODULE_LINE.search(_text(read, _manifest(root, "go.mod")))
        return found.group(1).strip('"`') if found else root or "."
    if language is Language.TYPESCRIPT:
        name = _json(read, _manifest(root, "package.json")).get("name")
        return name if isinstance(name, str) and name else root or "."
    if language is Language.RUST:
        package = _toml(read, _manifest(root, "Cargo.toml")).get("package")
        name = cast(dict[str, Any], package).get("name") if isinstance(package, dict) else None
        return name if isinstance(name, str) and name else root or "."
    return root or "."


def _with_dependencies(unit: Unit, units: list[Unit], read: Callable[[str], bytes | None],
                       layout: RepoLayout | None) -> Unit:  # fmt: skip
    by_name = {u.name: u for u in units if u.analyzer == unit.analyzer and u is not unit}
    found: set[str] = set()
    if unit.analyzer == "scip-go":
        text = _text(read, _manifest(unit.root, "go.mod"))
        required = {line.split()[0].strip('"`') for block in _GO_REQUIRE_BLOCK.findall(text)
                    for line in block.splitlines() if line.split() and not line.strip().startswith("//")}  # fmt: skip
        required |= {m.strip('"`') for m in _GO_REQUIRE_LINE.findall(text)}  # a path may be quoted, as in module
        found |= {by_name[m].id for m in required if m in by_name}
        found |= go_replaced(unit, units, text)
    elif unit.analyzer == "scip-typescript":
        package = _json(read, _manifest(unit.root, "package.json"))
        for table in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
            found |= {by_name[n].id for n in _fields(package.get(table)) if n in by_name}
        references = _json(read, _manifest(unit.root, "tsconfig.json")).get("references")
        entries: list[object] = cast(list[object], references) if isinstance(references, list) else []
        found |= _at_paths(unit, units, [p for r in entries if isinstance(p := _fields(r).get("path"), str)])
        if layout is not None:
            found |= _through_paths(unit, units, layout)
    elif unit.analyzer == "scip-python" and layout is not None:
        found |= _python_imports(unit, units, layout)
    elif unit.analyzer == "rust-analyzer":
        manifest = _toml(read, _manifest(unit.root, "Cargo.toml"))
        tables = [_fields(manifest.get(t)) for t in ("dependencies", "dev-dependencies", "build-dependencies")]
        tables.append(_fields(_fields(manifest.get("workspace")).get("dependencies")))
        specs = [_fields(spec) for table in tables for spec in table.values()]
        found |= _at_paths(unit, units, [p for spec in specs if isinstance(p := spec.get("path"), str)])
    found.discard(unit.id)
    return replace(unit, depends_on=tuple(sorted(found)))


def _through_paths(unit: Unit, units: Sequence[Unit], layout: RepoLayout) -> set[str]:
    """The units of the tree a TypeScript unit imports through its tsconfig's `paths` or `baseUrl`
    (its own or one it extends: `"@acme/core": ["libs/core/src/index.ts"]`), as its files write
    them. A base tsconfig commonly maps every package of the tree: what is mapped is not what is used."""
    config = read_paths_config(layout, _manifest(unit.root, "tsconfig.json"), depth=0)
    if config is None or not (config.paths or config.base_url is not None):
        return set()
    written = {spec for path in unit.files if (data := layout.read(path)) for spec in written_specifiers(data)}
    others = [u for u in units if u.analyzer == unit.analyzer and u is not unit]
    found: set[str] = set()
    for spec in sorted(s for s in written if not s.startswith(".")):
        for mapped in mapped_by_config(config, spec):
            held = [u for u in others if _inside(mapped + "/", u.root)]
            if held:
                found.add(max(held, key=lambda u: len(u.root)).id)
                break
    return found


def _python_imports(unit: Unit, units: Sequence[Unit], layout: RepoLayout) -> set[str]:
    """The Python projects of the tree whose modules a Python unit's files import, found where its
    type checker finds them (`module_places`): the project holding the module's file, or, for a
    namespace package several projects share (`opentelemetry`), each that has part of it."""
    python = sorted((u for u in units if u.analyzer == unit.analyzer), key=lambda u: -len(u.root))
    written = {m for path in unit.files if (data := layout.read(path)) for m in written_modules(data)}
    found: set[str] = set()
    for module in sorted(written):
        for place in module_places(module, layout):
            holder = next((u for u in python if _inside(place, u.root)), None)
            if holder is not None:
                found.add(holder.id)
            if not place.endswith(PYTHON_SUFFIXES):  # a namespace package's directory: projects inside it too
                found |= {u.id for u in python if u.root.startswith(place + "/")}
    return found


def go_replaced(unit: Unit, units: Sequence[Unit], go_mod: str) -> set[str]:
    """The ids of the Go modules of the tree that `unit`'s go.mod (`go_mod`, its text) replaces by
    a path: the siblings the go command loads from the tree. A sibling it only requires comes from
    the module cache, as published, whatever the tree holds."""
    return _at_paths(unit, units, [r.directory for r in local_replacements(go_mod)])


def _at_paths(unit: Unit, units: Sequence[Unit], relative: list[str]) -> set[str]:
    """The ids of the units (of the same analyzer) holding the directories `relative` names from
    `unit`'s root; a path leaving the tree names none."""
    found: set[str] = set()
    for path in relative:
        parts: list[str] = [p for p in unit.root.split("/") if p]
        for part in path.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if not parts:
                    break
                parts.pop()
            else:
                parts.append(part)
        else:
            target = "/".join(parts)
            holders = [u for u in units if u.analyzer == unit.analyzer and _inside(target + "/", u.root)]
            if holders:
                found.add(max(holders, key=lambda u: len(u.root)).id)
    return found


def _ordered(units: list[Unit]) -> Plan:
    """Dependencies first (Kahn's algorithm, ties in id order); units in a cycle after, in id order."""
    by_id = {u.id: u for u in units}
    waiting = {u.id: {d for d in u.depends_on if d in by_id} for u in units}
    done: list[Unit] = []
    ready = sorted(i for i, deps in waiting.items() if not deps)
    while ready:
        current = ready.pop(0)
        done.append(by_id[current])
        del waiting[current]
        freed = [i for i, deps in waiting.items() if current in deps and len(deps) == 1]
        for deps in waiting.values():
            deps.discard(current)
        ready = sorted({*ready, *freed})
    stuck = sorted(waiting)
    return Plan(tuple(done + [by_id[i] for i in stuck]), tuple(stuck))
